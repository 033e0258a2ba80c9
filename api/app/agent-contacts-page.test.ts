import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptToken, connect } from '../../test/contacts';
import { createAccount } from '../../test/factories';
import { contactsPath, invite, page, row, sideOf, signedIn, stack, table, useAgentContactsStack } from '../../test/fixtures/agent-contacts';
import { call } from '../../test/http';

// Text that would run a script or add an event handler if the page placed it unescaped.
const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(2)' x='`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;alert(2)&#39; x=&#39;';

useAgentContactsStack();

describe('the agent contacts page', () => {
  it('lists invitations to the principal (Accept, Decline), active contacts (Revoke), invitations sent (Cancel) and revoked ones', async () => {
    const me = await createAccount(stack.deps.db, { name: 'Mia Me' });
    const inviter = await createAccount(stack.deps.db, { name: 'Ivy Inviter' });
    const friend = await createAccount(stack.deps.db, { name: 'Fred Friend' });
    const declined = await createAccount(stack.deps.db, { name: 'Dora Declined' });
    const toMe = await invite(inviter, me.email, 'Mia');
    const sent = await invite(me, 'someone-new@example.test', 'Sunny Someone');
    const active = await connect(stack, friend, me, { name: 'Mia' });
    const gone = await invite(declined, me.email, 'Mia');
    const goneMine = await sideOf(me, gone.pair_id);
    assert.equal((await call(stack.url, 'POST', `/v1/contacts/${goneMine.contact_id}/revoke`, { key: me.key })).status, 200);

    const app = await signedIn(me);
    const { status, html } = await page(app);
    assert.equal(status, 200);
    assert.match(
      html,
      /An agent contact is another principal whose agents and yours may exchange offers to sign documents; accepting an invitation signs nothing\./,
    );
    assert.match(html, new RegExp(`<a href="${contactsPath()}" aria-current="page">Agent contacts</a>`), 'the navigation marks the page');

    const mine = (await sideOf(me, toMe.pair_id)).contact_id;
    const invitation = row(table(html, 'invitations-to-you'), mine);
    assert.match(invitation, /Ivy Inviter/);
    assert.ok(invitation.includes(inviter.email));
    assert.ok(invitation.includes(`action="${contactsPath(`/${mine}/accept`)}"`), invitation);
    assert.match(invitation, /data-testid="contact-accept">Accept</);
    assert.ok(invitation.includes(`action="${contactsPath(`/${mine}/revoke`)}"`), invitation);
    assert.match(invitation, /data-testid="contact-decline">Decline</);

    const contact = row(table(html, 'contacts-active'), active.toContact);
    assert.match(contact, /Fred Friend/);
    assert.ok(contact.includes(friend.email));
    assert.match(contact, /<time datetime="[^"]+">/, 'since when');
    assert.match(contact, /data-testid="contact-revoke">Revoke</);

    const outgoing = row(table(html, 'invitations-sent'), sent.contact_id);
    assert.match(outgoing, /Sunny Someone/);
    assert.match(outgoing, /someone-new@example\.test/);
    assert.match(outgoing, /data-testid="contact-cancel">Cancel</);

    const revoked = row(table(html, 'contacts-revoked'), goneMine.contact_id);
    assert.match(revoked, /Dora Declined/);
    assert.match(revoked, /data-testid="revoked-by">You declined their invitation</);
    assert.match(html, /<section class="muted" aria-labelledby="revoked-title">/, 'revoked ones are muted');

    // Each contact is listed once, in its own group.
    for (const id of [mine, active.toContact, sent.contact_id, goneMine.contact_id])
      assert.equal(html.match(new RegExp(`data-contact-id="${id}"`, 'g'))?.length, 1, id);
  });

  it('a principal with no contacts is told so', async () => {
    const loner = await createAccount(stack.deps.db);
    const { html } = await page(await signedIn(loner));
    assert.match(html, /data-testid="no-contacts">No contacts yet/);
    assert.equal(table(html, 'invitations-to-you'), '');
    assert.equal(table(html, 'invitations-sent'), '');
  });
});

describe('escaping', () => {
  it('a hostile counterparty name renders inert in every list and on the invitation card', async () => {
    const hostile = await createAccount(stack.deps.db, { name: HOSTILE });
    const me = await createAccount(stack.deps.db, { name: 'Pia Plain' });
    const invited = await invite(hostile, me.email, 'Pia');
    await invite(me, 'hostile-target@example.test', HOSTILE);
    const app = await signedIn(me);
    for (const suffix of ['', `?accept=${encodeURIComponent(acceptToken(invited.accept_url))}`]) {
      const { status, html } = await page(app, suffix);
      assert.equal(status, 200, suffix);
      assert.ok(!html.includes('<script>alert'), `${suffix}: a script tag came through`);
      assert.ok(!/onmouseover\s*=\s*"/.test(html), `${suffix}: an event handler came through`);
      assert.ok(html.includes(ESCAPED), `${suffix}: the name is shown, escaped`);
    }
    const sent = table((await page(app)).html, 'invitations-sent');
    assert.ok(sent.includes(ESCAPED), 'the name the agent gave is escaped too');
  });
});
