// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Offer } from '../../db/models';
import { connect } from '../../test/contacts';
import { seedSamples, sentNda, waitForDocument } from '../../test/documents';
import { createAccount } from '../../test/factories';
import {
  act,
  alice,
  aliceToBob,
  bob,
  bobPrincipal,
  carlSigns,
  delivered,
  hooks,
  offer,
  offeredNda,
  stack,
  useProtocolStack,
} from '../../test/fixtures/offers-protocol';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, hiddenFields, mandatedAccount } from '../../test/principal';
import { waitFor } from '../../test/wait';

describe('agent contacts and offers: the protocol between two tenants', () => {
  useProtocolStack();

  it('answers 409 document_changed once another signer changed the PDF since the offer', async () => {
    const { account: eve, principal: evePrincipal } = await mandatedAccount(stack, { level: 'L2', name: 'Eve Late' });
    const { fromContact } = await connect(stack, alice, eve);
    const document = await offeredNda(evePrincipal, 'Changed NDA');
    const made = await offer(alice, document.document_id, { contact_id: fromContact });
    await carlSigns(document);
    await waitForDocument(stack, alice.key, document.document_id, (d) => d.signers[1].status === 'signed', 'Carl’s signature');
    assertErrorCode(await act(eve, made.body.offer_id, 'accept'), 409, 'document_changed');
    assertErrorCode(await act(eve, made.body.offer_id, 'escalate'), 409, 'document_changed');
    const row = await Offer.query(stack.deps.db).findById(made.body.offer_id);
    assert.equal(row?.status, 'pending', 'nothing was signed');
  });

  it('an offer made by a key revoked since cannot be accepted or escalated: 403 mandate_inactive', async () => {
    const { account: olga, principal: olgaPrincipal } = await mandatedAccount(stack, { level: 'L2', name: 'Olga Offeror' });
    const { fromContact } = await connect(stack, olga, bob);
    const { nda: olgasNda } = await seedSamples(stack, olga);
    const document = await sentNda(stack, olga, olgasNda, bobPrincipal, {
      name: 'Offer of a revoked key',
      other: { name: 'Carl Browser' },
    });
    const made = await offer(olga, document.document_id, { contact_id: fromContact });
    assert.equal(made.status, 201, made.text);

    const app = await new AppClient(stack, olgaPrincipal.email).login();
    const revokePage = `${app.appPath}/keys/${olga.keyId}/revoke`;
    assert.equal((await app.post(revokePage, {}, revokePage)).status, 302);

    assertErrorCode(await act(bob, made.body.offer_id, 'accept'), 403, 'mandate_inactive');
    assertErrorCode(await act(bob, made.body.offer_id, 'escalate'), 403, 'mandate_inactive');
    const seen = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: bob.key });
    assert.equal(seen.body.signers[0].status, 'pending', 'nothing was signed');
  });

  it('a confirm page opened before an offer took its request over confirms nothing: the principal reviews the changed request', async () => {
    const { account: lee, principal: leePrincipal } = await mandatedAccount(stack, { level: 'L1', name: 'Lee Stale Page' });
    const { fromContact } = await connect(stack, alice, lee);
    const document = await offeredNda(leePrincipal, 'Taken over by an offer');
    // Lee's agent asks Lee to sign; Lee opens the confirm page.
    const asked = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign-requests`, {
      key: lee.key,
      body: { reason: 'Routine countersignature' },
    });
    assert.equal(asked.status, 201, asked.text);
    const app = await new AppClient(stack, lee.email).login();
    const link = new URL(asked.body.confirm_url).pathname;
    const seenForm = hiddenFields(await (await app.get(link)).text(), `${link}/confirm`);
    assert.match(seenForm.version, /^[0-9a-f]{32}$/);

    // Meanwhile Alice offers terms and Lee's agent escalates the offer: the open request now carries them.
    const made = await offer(alice, document.document_id, { contact_id: fromContact, terms: 'Net 90 and exclusivity' });
    const escalated = await act(lee, made.body.offer_id, 'escalate');
    assert.equal(escalated.body.status, 'escalated', escalated.text);
    assert.equal(escalated.body.confirm_url, asked.body.confirm_url, 'the open request was taken over');

    const stale = await app.post(`${link}/confirm`, seenForm);
    assert.equal(stale.status, 409);
    const refusal = await stale.text();
    assert.match(refusal, /This request changed since you opened it: review it again/);
    assert.match(refusal, /Net 90 and exclusivity/, 'the page shows the request as it is now');
    const request = await call(stack.url, 'GET', `/v1/documents/${document.document_id}/sign-requests`, { key: lee.key });
    assert.equal(request.body.data[0].status, 'open', 'nothing was confirmed');

    // Reviewed again, the confirm goes through and accepts the offer it now shows.
    assert.equal((await app.post(`${link}/confirm`, {}, link)).status, 200);
    await waitFor('the offer to be accepted', async () => {
      const reply = await call(stack.url, 'GET', `/v1/offers/${made.body.offer_id}`, { key: lee.key });
      return reply.body.status === 'accepted' ? reply.body : undefined;
    });
  });

  it('expires at expires_at: expired, with offer.expired to both sides; acting on it answers 410 expired', async () => {
    const short = await stack.withEnv({ SVC_OFFER_TTL_MS: '1500' });
    const { account: hal, principal: halPrincipal } = await mandatedAccount(stack, { level: 'L2', name: 'Hal Hesitant' });
    const { fromContact } = await connect(stack, alice, hal);
    const document = await offeredNda(halPrincipal, 'Short-lived NDA');
    const made = await call(short.url, 'POST', `/v1/documents/${document.document_id}/offers`, {
      key: alice.key,
      body: { contact_id: fromContact, terms: 'Quick' },
    });
    assert.equal(made.status, 201, made.text);
    await waitFor('the offer to expire', async () => {
      const reply = await call(stack.url, 'GET', `/v1/offers/${made.body.offer_id}`, { key: hal.key });
      return reply.body.status === 'expired' ? reply.body : undefined;
    });
    await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.expired', (d) => d.offer_id === made.body.offer_id);
    assertErrorCode(await act(hal, made.body.offer_id, 'accept'), 410, 'expired');
    assertErrorCode(await act(hal, made.body.offer_id, 'ack'), 410, 'expired');
  });

  it('another principal’s key gets 404 on every contact and offer id; the offeror cannot act on its own offer', async () => {
    const { fromContact, toContact } = await connect(stack, alice, (await mandatedAccount(stack, { name: 'Ivy Ignored' })).account);
    const document = await offeredNda(bobPrincipal, 'Private NDA');
    const made = await offer(alice, document.document_id, { contact_id: aliceToBob });
    assert.equal(made.status, 201, made.text);
    const stranger = await createAccount(stack.deps.db);
    for (const path of [`/v1/contacts/${fromContact}`, `/v1/contacts/${toContact}`, `/v1/offers/${made.body.offer_id}`])
      assertErrorCode(await call(stack.url, 'GET', path, { key: stranger.key }), 404, 'not_found');
    for (const verb of ['accept', 'revoke'])
      assertErrorCode(await call(stack.url, 'POST', `/v1/contacts/${fromContact}/${verb}`, { key: stranger.key }), 404, 'not_found');
    for (const verb of ['ack', 'decline', 'escalate']) assertErrorCode(await act(stranger, made.body.offer_id, verb), 404, 'not_found');
    assertErrorCode(
      await call(stack.url, 'POST', `/v1/documents/${document.document_id}/offers`, {
        key: stranger.key,
        body: { contact_id: fromContact, terms: 'x' },
      }),
      404,
      'not_found',
    );
    assertErrorCode(await act(alice, made.body.offer_id, 'ack'), 409, 'invalid_state');
    assertErrorCode(await act(alice, made.body.offer_id, 'accept'), 409, 'invalid_state');
  });

  it('feature flags: agent_contacts off closes every contact and offer route; agent_offers off closes the offer routes only', async () => {
    const contactsOff = await stack.withEnv({ SVC_FF_AGENT_CONTACTS: 'off' });
    const offersOff = await stack.withEnv({ SVC_FF_AGENT_OFFERS: 'off' });
    const routes: Array<[string, string]> = [
      ['GET', '/v1/contacts'],
      ['POST', '/v1/contacts'],
      ['GET', '/v1/contacts/ct_x'],
      ['POST', '/v1/contacts/ct_x/accept'],
      ['POST', '/v1/contacts/accept'],
      ['POST', '/v1/contacts/ct_x/revoke'],
    ];
    const offerRoutes: Array<[string, string]> = [
      ['GET', '/v1/offers'],
      ['GET', '/v1/offers/ofr_x'],
      ['POST', '/v1/documents/doc_x/offers'],
      ...['ack', 'accept', 'decline', 'escalate'].map((verb): [string, string] => ['POST', `/v1/offers/ofr_x/${verb}`]),
    ];
    for (const [method, path] of [...routes, ...offerRoutes])
      assertErrorCode(
        await call(contactsOff.url, method, path, { key: bob.key, body: method === 'POST' ? {} : undefined }),
        403,
        'feature_disabled',
      );
    for (const [method, path] of offerRoutes)
      assertErrorCode(
        await call(offersOff.url, method, path, { key: bob.key, body: method === 'POST' ? {} : undefined }),
        403,
        'feature_disabled',
      );
    assert.equal((await call(offersOff.url, 'GET', '/v1/contacts', { key: bob.key })).status, 200);
  });

  it('reserves counter and revoke_mandate (501); accept needs documents:sign (403 insufficient_scope)', async () => {
    for (const verb of ['counter', 'revoke_mandate']) assertErrorCode(await act(bob, 'ofr_anything', verb), 501, 'not_implemented');
    const unmandated = await createAccount(stack.deps.db);
    assertErrorCode(await act(unmandated, 'ofr_anything', 'accept'), 403, 'insufficient_scope');
  });
});
