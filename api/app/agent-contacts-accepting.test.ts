import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contactAcceptToken } from '../../activities/contacts/contacts';
import { acceptToken } from '../../test/contacts';
import { latestMail } from '../../test/documents';
import { createAccount } from '../../test/factories';
import {
  appPath,
  contactsPath,
  invite,
  notice,
  page,
  row,
  sideOf,
  signedIn,
  stack,
  statusOf,
  table,
  useAgentContactsStack,
} from '../../test/fixtures/agent-contacts';
import { AppClient, challengeIn } from '../../test/principal';

useAgentContactsStack();

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
    const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, invitee.email, 'login-code'))!.text)![1];
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
