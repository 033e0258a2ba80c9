import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contactAcceptToken } from '../../activities/contacts/contacts';
import { acceptToken, connect } from '../../test/contacts';
import { latestMail } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { AppClient, challengeIn } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

// Text that would run a script or add an event handler if the page placed it unescaped.
const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(2)' x='`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;alert(2)&#39; x=&#39;';

let stack: Stack;

before(async () => {
  stack = await startStack();
});
after(() => stack?.close());

const appPath = () => new URL(stack.config.appUrl).pathname.replace(/\/$/, '');
const contactsPath = (suffix = '') => `${appPath()}/agent-contacts${suffix}`;
const notice = (html: string) => /data-testid="notice">([^<]*)</.exec(html)?.[1] ?? '';
const navOf = (html: string) => /<nav aria-label="App">[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';

/** The markup of one table of the page, by its data-testid ('' when the page has none). */
function table(html: string, testid: string): string {
  return new RegExp(`data-testid="${testid}">[\\s\\S]*?</table>`).exec(html)?.[0] ?? '';
}

/** The row of one contact in a table's markup ('' when it is not there). */
function row(markup: string, contactId: string): string {
  return new RegExp(`<tr[^>]*data-contact-id="${contactId}"[\\s\\S]*?</tr>`).exec(markup)?.[0] ?? '';
}

/** `from`'s agent invites an e-mail, as agents do (POST /v1/contacts). */
async function invite(
  from: Account,
  email: string,
  name = 'Invitee',
): Promise<{ contact_id: string; pair_id: string; accept_url: string }> {
  const invited = await call(stack.url, 'POST', '/v1/contacts', { key: from.key, body: { email, name } });
  assert.equal(invited.status, 201, invited.text);
  return invited.body;
}

/** The side of a pair that belongs to this account's principal, through its agent's key. */
async function sideOf(account: Account, pairId: string): Promise<{ contact_id: string; status: string; revoked_by: string | null }> {
  const list = await call(stack.url, 'GET', '/v1/contacts?limit=100', { key: account.key });
  assert.equal(list.status, 200, list.text);
  const side = list.body.data.find((contact: { pair_id: string }) => contact.pair_id === pairId);
  assert.ok(side, `a contact of the pair ${pairId}`);
  return side;
}

async function statusOf(account: Account, contactId: string): Promise<string> {
  const reply = await call(stack.url, 'GET', `/v1/contacts/${contactId}`, { key: account.key });
  assert.equal(reply.status, 200, reply.text);
  return reply.body.status;
}

async function page(app: AppClient, suffix = ''): Promise<{ status: number; html: string }> {
  const response = await app.get(contactsPath(suffix));
  return { status: response.status, html: await response.text() };
}

async function signedIn(account: Account): Promise<AppClient> {
  return new AppClient(stack, account.email).login();
}

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

describe('accepting', () => {
  it('the accept_url sends a visitor to sign in and back to the invitation, whose Accept form makes both sides active', async () => {
    const inviter = await createAccount(stack.deps.db, { name: 'Ivo Inviter' });
    const invitee = await createAccount(stack.deps.db, { name: 'Tess Invitee' });
    const invited = await invite(inviter, invitee.email, 'Tess');
    const link = new URL(invited.accept_url);
    assert.equal(link.pathname, contactsPath());
    const target = `${link.pathname}${link.search}`;

    // Signed out: to sign in, keeping the whole link (with ?accept=) as the way back.
    const visitor = new AppClient(stack, invitee.email);
    const away = await visitor.get(target);
    assert.equal(away.status, 302);
    const login = away.headers.get('location')!;
    assert.equal(login, `${appPath()}/login?next=${encodeURIComponent(target)}`);
    const form = await (await visitor.get(login)).text();
    assert.ok(form.includes(`name="next" value="${target.replace(/&/g, '&amp;')}"`), form);
    const asked = await visitor.post(`${appPath()}/login`, { email: invitee.email, next: target });
    const code = /\b(\d{6})\b/.exec((await latestMail(stack, invitee.email, 'login-code'))!.text)![1];
    const verified = await visitor.post(`${appPath()}/login/verify`, {
      email: invitee.email,
      code,
      next: target,
      challenge: challengeIn(await asked.text()),
    });
    assert.equal(verified.status, 302);
    assert.equal(verified.headers.get('location'), target, 'back to the invitation');

    const { status, html } = await page(visitor, link.search);
    assert.equal(status, 200);
    assert.match(html, /data-testid="invitation"/);
    assert.match(html, /data-testid="invitation-from">Ivo Inviter</);
    assert.ok(html.includes(`data-testid="invitation-email">${inviter.email}<`));
    assert.match(html, /It signs nothing/);
    const token = acceptToken(invited.accept_url);
    assert.ok(html.includes(`<input type="hidden" name="token" value="${token}">`), 'the form posts the token');
    const mine = (await sideOf(invitee, invited.pair_id)).contact_id;
    assert.equal(table(html, 'invitations-to-you'), '', 'the invitation on the card is not listed again');

    const accepted = await visitor.post(contactsPath('/accept'), { token }, target);
    assert.equal(accepted.status, 302);
    assert.equal(accepted.headers.get('location'), contactsPath('?done=accepted'));
    const after = await page(visitor, '?done=accepted');
    assert.match(notice(after.html), /You are now agent contacts/);
    assert.match(row(table(after.html, 'contacts-active'), mine), /Ivo Inviter/);
    assert.equal(await statusOf(invitee, mine), 'active');
    assert.equal(await statusOf(inviter, invited.contact_id), 'active');

    // The link again: the card says they are contacts, with no button.
    const again = await page(visitor, link.search);
    assert.equal(again.status, 200);
    assert.match(again.html, /data-testid="invitation-state">You are agent contacts since/);
    assert.doesNotMatch(again.html, /data-testid="invitation-accept"/);
  });

  it('an invitation listed without a token is accepted with its own Accept button', async () => {
    const inviter = await createAccount(stack.deps.db, { name: 'Lou Lister' });
    const invitee = await createAccount(stack.deps.db);
    const invited = await invite(inviter, invitee.email);
    const mine = (await sideOf(invitee, invited.pair_id)).contact_id;
    const app = await signedIn(invitee);
    const accepted = await app.post(contactsPath(`/${mine}/accept`), {}, contactsPath());
    assert.equal(accepted.status, 302);
    assert.equal(accepted.headers.get('location'), contactsPath('?done=accepted'));
    assert.equal(await statusOf(invitee, mine), 'active');
    assert.equal(await statusOf(inviter, invited.contact_id), 'active');
  });

  it('a link for another e-mail, a forged link or one’s own invitation is a notice with the rule’s status, never a 500', async () => {
    const inviter = await createAccount(stack.deps.db, { name: 'Ola Other' });
    const intended = await createAccount(stack.deps.db);
    const stranger = await createAccount(stack.deps.db);
    const invited = await invite(inviter, intended.email);
    const token = acceptToken(invited.accept_url);
    const app = await signedIn(stranger);

    const other = await page(app, `?accept=${encodeURIComponent(token)}`);
    assert.equal(other.status, 404);
    assert.equal(notice(other.html), 'No such invitation for you: it was sent to another e-mail address.');
    assert.match(other.html, /data-testid="invitation-hint">You are signed in as <strong>/);
    assert.doesNotMatch(other.html, /data-testid="invitation-accept"/);
    assert.doesNotMatch(other.html, /Ola Other/, 'nothing of the invitation is shown');

    const forged = await page(app, `?accept=${encodeURIComponent(`${invited.pair_id}.forged`)}`);
    assert.equal(forged.status, 404);
    assert.equal(notice(forged.html), 'This invitation link is not valid.');
    const unknown = contactAcceptToken(stack.deps.secret, '00000000-0000-4000-8000-000000000000');
    assert.equal((await page(app, `?accept=${unknown}`)).status, 404);
    assert.equal((await page(app, '?accept=')).status, 404);

    const own = await page(await signedIn(inviter), `?accept=${encodeURIComponent(token)}`);
    assert.equal(own.status, 409);
    assert.match(notice(own.html), /This is your own invitation/);

    // Posting the token of someone else's invitation is refused the same way, and changes nothing.
    const posted = await app.post(contactsPath('/accept'), { token }, contactsPath());
    assert.equal(posted.status, 404);
    assert.match(notice(await posted.text()), /sent to another e-mail address/);
    const theirs = await app.post(contactsPath(`/${invited.contact_id}/revoke`), {}, contactsPath());
    assert.equal(theirs.status, 404);
    assert.equal(notice(await theirs.text()), 'No such contact.');
    assert.equal(await statusOf(inviter, invited.contact_id), 'invited');
  });
});

describe('revoking', () => {
  it('Revoke ends an active contact on both sides; Cancel and Decline end invitations; each says who ended it', async () => {
    const me = await createAccount(stack.deps.db, { name: 'Rae Revoker' });
    const friend = await createAccount(stack.deps.db, { name: 'Finn Friend' });
    const asker = await createAccount(stack.deps.db, { name: 'Ash Asker' });
    const target = await createAccount(stack.deps.db, { name: 'Tim Target' });
    const active = await connect(stack, me, friend, { name: 'Finn' });
    const toMe = await invite(asker, me.email);
    const sent = await invite(me, target.email, 'Tim');
    const toMeId = (await sideOf(me, toMe.pair_id)).contact_id;
    const app = await signedIn(me);

    const revoked = await app.post(contactsPath(`/${active.fromContact}/revoke`), {}, contactsPath());
    assert.equal(revoked.status, 302);
    assert.equal(revoked.headers.get('location'), contactsPath('?done=revoked'));
    assert.match(notice((await page(app, '?done=revoked')).html), /Ended on both sides/);
    assert.equal(await statusOf(me, active.fromContact), 'revoked');
    assert.equal(await statusOf(friend, active.toContact), 'revoked');

    assert.equal((await app.post(contactsPath(`/${sent.contact_id}/revoke`), {}, contactsPath())).status, 302);
    assert.equal(await statusOf(target, (await sideOf(target, sent.pair_id)).contact_id), 'revoked');
    assert.equal((await app.post(contactsPath(`/${toMeId}/revoke`), {}, contactsPath())).status, 302);
    assert.equal(await statusOf(asker, toMe.contact_id), 'revoked');

    const { html } = await page(app);
    const ended = table(html, 'contacts-revoked');
    assert.match(row(ended, active.fromContact), /data-testid="revoked-by">You revoked it</);
    assert.match(row(ended, sent.contact_id), /data-testid="revoked-by">You cancelled your invitation</);
    assert.match(row(ended, toMeId), /data-testid="revoked-by">You declined their invitation</);
    assert.equal(table(html, 'contacts-active'), '');

    // The other side reads who ended it.
    const friendPage = (await page(await signedIn(friend))).html;
    assert.match(row(table(friendPage, 'contacts-revoked'), active.toContact), /data-testid="revoked-by">They revoked it</);

    // A second revoke is the rule's 409, shown on the page.
    const twice = await app.post(contactsPath(`/${active.fromContact}/revoke`), {}, contactsPath());
    assert.equal(twice.status, 409);
    assert.equal(notice(await twice.text()), 'This contact is already revoked.');
  });
});

describe('form tokens', () => {
  it('a post without the session’s form token is refused with 400 and changes nothing', async () => {
    const inviter = await createAccount(stack.deps.db);
    const me = await createAccount(stack.deps.db);
    const invited = await invite(inviter, me.email);
    const mine = (await sideOf(me, invited.pair_id)).contact_id;
    const app = await signedIn(me);
    const posts: Array<[string, Record<string, string>]> = [
      ['/accept', { token: acceptToken(invited.accept_url) }],
      [`/${mine}/accept`, {}],
      [`/${mine}/revoke`, {}],
    ];
    for (const [suffix, fields] of posts) {
      for (const token of [undefined, 'forged']) {
        const response = await app.post(contactsPath(suffix), token ? { ...fields, _csrf: token } : fields);
        assert.equal(response.status, 400, `${suffix} ${token}`);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await response.text(), /This form has expired or did not come from this app/, suffix);
      }
    }
    assert.equal(await statusOf(me, mine), 'invited');
    assert.equal(await statusOf(inviter, invited.contact_id), 'invited');
  });
});

describe('the agent_contacts flag', () => {
  it('off: no navigation entry, and the page and its forms answer 403 feature_disabled', async () => {
    const me = await createAccount(stack.deps.db);
    const inviter = await createAccount(stack.deps.db);
    const invited = await invite(inviter, me.email);
    const app = await signedIn(me);
    assert.match(navOf(await (await app.get(`${appPath()}/`)).text()), />Agent contacts<\/a>/, 'on: the entry is there');

    const off = await stack.withEnv({ SVC_FF_AGENT_CONTACTS: 'off' });
    try {
      const get = (suffix: string) => fetch(`${off.url}${suffix}`, { headers: { cookie: app.cookie }, redirect: 'manual' });
      for (const suffix of ['/', '/keys', '/mandates']) {
        const html = await (await get(`${appPath()}${suffix}`)).text();
        assert.notEqual(navOf(html), '', suffix);
        assert.doesNotMatch(navOf(html), /Agent contacts|agent-contacts/, suffix);
      }
      for (const suffix of ['', `?accept=${encodeURIComponent(acceptToken(invited.accept_url))}`]) {
        const response = await get(contactsPath(suffix));
        assert.equal(response.status, 403, suffix);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        const html = await response.text();
        assert.equal(notice(html), 'The feature agent_contacts is disabled for this deployment.');
        assert.doesNotMatch(navOf(html), /Agent contacts/, 'nor on its own page');
        assert.doesNotMatch(html, /data-testid="invitation"/);
      }
      const csrf = /name="_csrf" value="([^"]*)"/.exec(await (await get(`${appPath()}/`)).text())![1];
      const mine = (await sideOf(me, invited.pair_id)).contact_id;
      for (const suffix of ['/accept', `/${mine}/accept`, `/${mine}/revoke`]) {
        const response = await fetch(`${off.url}${contactsPath(suffix)}`, {
          method: 'POST',
          headers: { cookie: app.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: csrf, token: acceptToken(invited.accept_url) }).toString(),
          redirect: 'manual',
        });
        assert.equal(response.status, 403, suffix);
        assert.match(notice(await response.text()), /agent_contacts is disabled/);
      }
      assert.equal(await statusOf(me, mine), 'invited');
    } finally {
      await off.close();
    }
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
