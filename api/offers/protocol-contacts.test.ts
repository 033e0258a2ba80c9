// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptToken, connect } from '../../test/contacts';
import { latestMail } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { act, alice, delivered, hooks, inbox, offer, offeredNda, stack, useProtocolStack } from '../../test/fixtures/offers-protocol';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, mandatedAccount } from '../../test/principal';
import { waitFor } from '../../test/wait';

describe('agent contacts and offers: the protocol between two tenants', () => {
  useProtocolStack();

  it('contacts: invite by e-mail, accept by token, both sides active; each side and its inbox hear it, signed', async () => {
    const { account: invitee } = await mandatedAccount(stack, { level: 'L2', name: 'Ida Invitee' });
    const [aliceInbox, inviteeInbox] = [await inbox(), await inbox()];
    const invited = await call(stack.url, 'POST', '/v1/contacts', {
      key: alice.key,
      body: { email: invitee.email.toUpperCase(), name: 'Ida', inbox_url: aliceInbox.url },
    });
    assert.equal(invited.status, 201, invited.text);
    assert.match(invited.body.contact_id, /^ct_/);
    assert.match(invited.body.pair_id, /^[0-9a-f-]{36}$/);
    assert.equal(invited.body.status, 'invited');
    assert.equal(invited.body.counterparty_email, invitee.email);
    assert.ok(invited.body.accept_url.startsWith(`${stack.config.appUrl}/agent-contacts?accept=`));
    assert.match(invited.body.inbox_secret, /^whsec_/);
    const mail = await waitFor('the invitation mail', () => latestMail(stack, invitee.email, 'contact-invite'));
    assert.ok(mail.text.includes(invited.body.accept_url), 'the invitee is e-mailed the accept link');

    // The invitee sees its own inbound copy of the same pair, with the same link.
    const theirs = await call(stack.url, 'GET', '/v1/contacts', { key: invitee.key });
    const inbound = theirs.body.data.find((c: any) => c.pair_id === invited.body.pair_id);
    assert.equal(inbound.direction, 'inbound');
    assert.equal(inbound.status, 'invited');
    assert.equal(inbound.accept_url, invited.body.accept_url);

    // Only the invited principal accepts: the inviter cannot, and a stranger's key learns nothing.
    assertErrorCode(
      await call(stack.url, 'POST', `/v1/contacts/${invited.body.contact_id}/accept`, { key: alice.key }),
      409,
      'invalid_state',
    );
    const stranger = await createAccount(stack.deps.db);
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/contacts/accept', { key: stranger.key, body: { token: acceptToken(invited.body.accept_url) } }),
      404,
      'not_found',
    );
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/contacts/accept', { key: invitee.key, body: { token: 'forged.token' } }),
      404,
      'not_found',
    );

    const accepted = await call(stack.url, 'POST', '/v1/contacts/accept', {
      key: invitee.key,
      body: { token: acceptToken(invited.body.accept_url), inbox_url: inviteeInbox.url },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.contact_id, inbound.contact_id);
    assert.equal(accepted.body.status, 'active');
    assert.equal(accepted.body.accept_url, null);
    const mine = await call(stack.url, 'GET', `/v1/contacts/${invited.body.contact_id}`, { key: alice.key });
    assert.equal(mine.body.status, 'active');
    assert.equal(mine.body.invitation.status, 'sent');

    const aliceSaw = await delivered(
      hooks.alice.receiver,
      hooks.alice.secret,
      'contact.accepted',
      (d) => d.pair_id === invited.body.pair_id,
    );
    assert.equal(aliceSaw.data.contact_id, invited.body.contact_id);
    await delivered(aliceInbox, invited.body.inbox_secret, 'contact.invited', (d) => d.pair_id === invited.body.pair_id);
    await delivered(aliceInbox, invited.body.inbox_secret, 'contact.accepted', (d) => d.contact_id === invited.body.contact_id);
    await delivered(inviteeInbox, accepted.body.inbox_secret, 'contact.accepted', (d) => d.contact_id === inbound.contact_id);

    // One live relationship per pair of principals.
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/contacts', { key: alice.key, body: { email: invitee.email, name: 'Again' } }),
      409,
      'conflict',
    );
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/contacts', { key: invitee.key, body: { email: alice.email, name: 'Back' } }),
      409,
      'conflict',
    );
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/contacts', { key: alice.key, body: { email: alice.email, name: 'Me' } }),
      400,
      'invalid_request',
    );
  });

  it('a revoked contact blocks new offers and accepts; revoking an invitation cancels it', async () => {
    const { account: finn, principal: finnPrincipal } = await mandatedAccount(stack, { level: 'L2', name: 'Finn Former' });
    const { fromContact, toContact } = await connect(stack, alice, finn);
    const document = await offeredNda(finnPrincipal, 'Revoked NDA');
    const made = await offer(alice, document.document_id, { contact_id: fromContact });
    const revoked = await call(stack.url, 'POST', `/v1/contacts/${toContact}/revoke`, { key: finn.key });
    assert.equal(revoked.body.status, 'revoked');
    assert.equal(revoked.body.revoked_by, 'self');
    const other = await call(stack.url, 'GET', `/v1/contacts/${fromContact}`, { key: alice.key });
    assert.equal(other.body.status, 'revoked');
    assert.equal(other.body.revoked_by, 'counterparty');
    await delivered(hooks.alice.receiver, hooks.alice.secret, 'contact.revoked', (d) => d.contact_id === fromContact);
    assertErrorCode(await act(finn, made.body.offer_id, 'accept'), 409, 'invalid_state');
    assertErrorCode(await offer(alice, document.document_id, { contact_id: fromContact }), 409, 'invalid_state');
    assertErrorCode(await call(stack.url, 'POST', `/v1/contacts/${toContact}/revoke`, { key: finn.key }), 409, 'invalid_state');

    const { account: gus } = await mandatedAccount(stack, { level: 'L2', name: 'Gus Cancelled' });
    const invited = await call(stack.url, 'POST', '/v1/contacts', { key: alice.key, body: { email: gus.email, name: 'Gus' } });
    const cancelled = await call(stack.url, 'POST', `/v1/contacts/${invited.body.contact_id}/revoke`, { key: alice.key });
    assert.equal(cancelled.body.status, 'revoked');
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/contacts/accept', { key: gus.key, body: { token: acceptToken(invited.body.accept_url) } }),
      409,
      'invalid_state',
    );
  });

  it('a contact revoked after the escalation stops the principal’s confirmation from signing', async () => {
    const { account: jo, principal: joPrincipal } = await mandatedAccount(stack, { level: 'L1', name: 'Jo Late Revoke' });
    const { fromContact } = await connect(stack, alice, jo);
    const document = await offeredNda(joPrincipal, 'Revoked after escalation');
    const made = await offer(alice, document.document_id, { contact_id: fromContact });
    const escalated = await act(jo, made.body.offer_id, 'escalate');
    assert.equal(escalated.body.status, 'escalated');
    await call(stack.url, 'POST', `/v1/contacts/${fromContact}/revoke`, { key: alice.key });
    const app = await new AppClient(stack, jo.email).login();
    const link = new URL(escalated.body.confirm_url).pathname;
    await app.post(`${link}/confirm`, {}, link);
    const failed = await waitFor('the escalation to fail', async () => {
      const reply = await call(stack.url, 'GET', `/v1/offers/${made.body.offer_id}`, { key: jo.key });
      return reply.body.error ? reply.body : undefined;
    });
    assert.equal(failed.status, 'escalated');
    assert.equal(failed.error.code, 'invalid_state');
    const signed = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: alice.key });
    assert.equal(signed.body.signers[0].status, 'pending', 'nothing was signed');
  });
});
