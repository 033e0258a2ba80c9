import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from '../../test/contacts';
import { createAccount } from '../../test/factories';
import {
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

useAgentContactsStack();

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
