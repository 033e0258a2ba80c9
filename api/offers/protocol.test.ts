// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { Offer, type Principal, type Template } from '../../db/models';
import { acceptToken, connect } from '../../test/contacts';
import { downloadPdf, latestMail, SignerSession, seedSamples, sentNda, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { pdfAttachments, pdfsig, pdfText } from '../../test/pdf-tools';
import { AppClient, hiddenFields, mandatedAccount } from '../../test/principal';
import { documentedVerifier, Receiver, selfSignedCertificate, type Verify } from '../../test/receiver';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('agent contacts and offers: the protocol between two tenants', () => {
  let stack: Stack;
  let tls: ReturnType<typeof selfSignedCertificate>;
  let verify: Verify;
  let alice: Account;
  let bob: Account;
  let bobPrincipal: Principal;
  let bobMandate: { id: string };
  let nda: Template;
  /** Alice's and Bob's sides of their contact, made once. */
  let aliceToBob: string;
  let bobToAlice: string;
  /** Each side's inbox_url of that contact, with its signing secret. */
  const inboxes: Record<string, { receiver: Receiver; secret: string }> = {};
  const receivers: Receiver[] = [];
  const hooks: Record<string, { receiver: Receiver; secret: string }> = {};

  before(async () => {
    tls = selfSignedCertificate();
    verify = await documentedVerifier();
    stack = await startStack({
      env: {
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
        SVC_WEBHOOK_RETRY_MAX_MS: '800',
        SVC_OUTBOX_POLL_MS: '100',
        SVC_APPLY_WAIT_MS: '30000',
      },
    });
    ({ account: alice } = await mandatedAccount(stack, { level: 'L2', name: 'Alice Offeror', label: 'alice agent' }));
    const made = await mandatedAccount(stack, { level: 'L2', name: 'Bob Counterparty', label: 'bob agent' });
    ({ account: bob, principal: bobPrincipal } = made);
    bobMandate = made.mandate;
    ({ nda } = await seedSamples(stack, alice));
    for (const [name, account] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      const receiver = await new Receiver(tls).start();
      receivers.push(receiver);
      const created = await call(stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: receiver.url } });
      assert.equal(created.status, 201, created.text);
      hooks[name] = { receiver, secret: created.body.secret };
    }
    const [aliceInbox, bobInbox] = [await new Receiver(tls).start(), await new Receiver(tls).start()];
    receivers.push(aliceInbox, bobInbox);
    const pair = await connect(stack, alice, bob, { fromInbox: aliceInbox.url, toInbox: bobInbox.url });
    ({ fromContact: aliceToBob, toContact: bobToAlice } = pair);
    inboxes.alice = { receiver: aliceInbox, secret: pair.fromSecret! };
    inboxes.bob = { receiver: bobInbox, secret: pair.toSecret! };
  });
  after(async () => {
    for (const receiver of receivers) await receiver.stop();
    await stack.close();
  });

  async function inbox(): Promise<Receiver> {
    const receiver = await new Receiver(tls).start();
    receivers.push(receiver);
    return receiver;
  }

  /** The deliveries of an event about `id` (a contact or an offer) that reached a receiver, each verified with the secret. */
  async function delivered(receiver: Receiver, secret: string, event: string, match: (data: any) => boolean) {
    return waitFor(`${event} at ${receiver.url}`, () => {
      const found = receiver.received.find((entry) => {
        const body = JSON.parse(entry.body);
        return body.event === event && match(body.data);
      });
      if (!found) return undefined;
      assert.ok(verify(secret, String(found.headers['x-webhook-signature']), found.body), `${event}: a valid signature`);
      return JSON.parse(found.body);
    });
  }

  async function verifyReceipt(jws: string) {
    const keys = await fetch(`${stack.url}/.well-known/jwks.json`);
    assert.equal(keys.status, 200);
    const jwks = createLocalJWKSet((await keys.json()) as JSONWebKeySet);
    return (await jwtVerify(jws, jwks, { issuer: stack.config.publicUrl, algorithms: ['ES256'] })).payload as any;
  }

  /** A sent NDA of Alice's where `signer` signs first and a fresh person (Carl) second, in the browser. */
  const offeredNda = (signer: { name: string; email: string }, name = 'Offered NDA') =>
    sentNda(stack, alice, nda, signer, { name, other: { name: 'Carl Browser' } });

  async function carlSigns(document: any) {
    const carl = document.signers[1];
    const session = await new SignerSession(stack, carl.sign_url, carl.email).verify();
    const signed = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: { 'receiving-title': 'CFO' },
    });
    assert.equal(signed.status, 200, signed.text);
  }

  const offer = (from: Account, documentId: string, body: Record<string, unknown>) =>
    call(stack.url, 'POST', `/v1/documents/${documentId}/offers`, { key: from.key, body: { terms: 'Net 30, NDA as drafted', ...body } });
  const act = (account: Account, offerId: string, verb: string) =>
    call(stack.url, 'POST', `/v1/offers/${offerId}/${verb}`, { key: account.key });

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

  it('L2: the counterparty’s agent accepts at once; the result is pdfsig-valid, certified to the principal under its mandate, with verifiable receipts', async () => {
    const document = await offeredNda(bobPrincipal);
    await carlSigns(document);
    const before = await downloadPdf(stack, alice.key, document.document_id);

    const made = await offer(alice, document.document_id, { contact_id: aliceToBob });
    assert.equal(made.status, 201, made.text);
    assert.match(made.body.offer_id, /^ofr_/);
    assert.equal(made.body.status, 'pending');
    assert.equal(made.body.pre_sign_hash, sha256(before), 'bound to the SHA-256 of the current PDF');
    assert.equal(made.body.human_signature_required, false);
    assert.equal(made.body.from_email, alice.email);
    assert.equal(made.body.to_email, bob.email);
    assert.ok(Date.parse(made.body.expires_at) > Date.now() + 6 * 24 * 3600_000, 'a default lifetime of 7 days');
    const offerId = made.body.offer_id;

    const received = await delivered(hooks.bob.receiver, hooks.bob.secret, 'offer.received', (d) => d.offer_id === offerId);
    for (const field of [
      'document_id',
      'document_name',
      'from_email',
      'to_email',
      'terms',
      'pre_sign_hash',
      'human_signature_required',
      'expires_at',
    ])
      assert.equal(received.data[field], made.body[field], field);
    assert.equal(received.data.contact_id, bobToAlice);
    await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.sent', (d) => d.offer_id === offerId);
    const atInbox = await delivered(inboxes.bob.receiver, inboxes.bob.secret, 'offer.received', (d) => d.offer_id === offerId);
    assert.equal(atInbox.data.pre_sign_hash, made.body.pre_sign_hash, 'the inbox_url hears the same event, signed with its own secret');
    await delivered(inboxes.alice.receiver, inboxes.alice.secret, 'offer.sent', (d) => d.offer_id === offerId);

    const inbound = await call(stack.url, 'GET', '/v1/offers?direction=inbound', { key: bob.key });
    assert.ok(inbound.body.data.some((o: any) => o.offer_id === offerId && o.direction === 'inbound'));
    const outbound = await call(stack.url, 'GET', '/v1/offers?direction=outbound&status=pending', { key: alice.key });
    assert.ok(outbound.body.data.some((o: any) => o.offer_id === offerId));

    const accepted = await act(bob, offerId, 'accept');
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.status, 'accepted');
    assert.equal(accepted.body.mandate_id, bobMandate.id);
    assert.equal(accepted.body.confirmation_level, 'l2');
    assert.match(accepted.body.document_hash, /^[0-9a-f]{64}$/);
    assertErrorCode(await act(bob, offerId, 'accept'), 409, 'invalid_state');
    assertErrorCode(await act(bob, offerId, 'decline'), 409, 'invalid_state');

    const completed = await waitForDocument(stack, alice.key, document.document_id, (d) => d.status === 'completed', 'completion');
    const pdf = await downloadPdf(stack, alice.key, document.document_id);
    assert.ok((await pdfsig(pdf)).valid, 'pdfsig: valid, whole document');
    const text = await pdfText(pdf);
    assert.ok(text.includes(bobPrincipal.name) && text.includes(bobPrincipal.email), 'the principal is named');
    assert.ok(text.includes(`Mandate : ${bobMandate.id} (L2)`), 'under its mandate');
    assert.ok(!text.includes('bob agent'), 'the agent is never named');

    const receipt = await verifyReceipt(accepted.body.receipt_jws);
    assert.equal(receipt.offer_id, offerId);
    assert.equal(receipt.pre_sign_hash, made.body.pre_sign_hash);
    assert.equal(receipt.document_hash, accepted.body.document_hash);
    assert.equal(receipt.mandate_id, bobMandate.id);
    assert.deepEqual(receipt.signers[0].principal, { email: bob.email, name: bobPrincipal.name });
    assert.ok(!JSON.stringify(receipt).includes('bob agent') && !JSON.stringify(receipt).includes(bob.keyId), 'no agent in the receipt');
    const [head, payload, signature] = accepted.body.receipt_jws.split('.');
    const forged = Buffer.from(JSON.stringify({ ...receipt, mandate_id: 'mdt_forged' })).toString('base64url');
    await assert.rejects(verifyReceipt(`${head}.${forged}.${signature}`), 'a tampered receipt is refused');
    assert.notEqual(forged, payload);

    const completion = await verifyReceipt(completed.receipt_jws);
    assert.equal(completion.document_id, document.document_id);
    assert.equal(completion.signers.length, 2);
    // The completed PDF carries this very receipt (so it names no final hash of its own) and the audit trail.
    assert.equal(completion.final_sha256, undefined);
    const attached = await pdfAttachments(pdf);
    assert.equal(attached['receipt.jws']?.toString(), completed.receipt_jws);
    assert.equal(JSON.parse(attached['audit-trail.json'].toString()).document_id, document.document_id);

    const bobSaw = await delivered(hooks.bob.receiver, hooks.bob.secret, 'offer.accepted', (d) => d.offer_id === offerId);
    assert.equal(bobSaw.data.mandate_id, bobMandate.id);
    assert.equal(bobSaw.data.document_hash, accepted.body.document_hash);
    const aliceSaw = await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.accepted', (d) => d.offer_id === offerId);
    assert.equal(aliceSaw.data.receipt_jws, accepted.body.receipt_jws);
    for (const side of ['alice', 'bob'])
      await delivered(inboxes[side].receiver, inboxes[side].secret, 'offer.accepted', (d) => d.offer_id === offerId);
    const done = await delivered(hooks.bob.receiver, hooks.bob.secret, 'document.completed', (d) => d.document_id === document.document_id);
    assert.equal(done.data.receipt_jws, completed.receipt_jws);
  });

  it('L1: the accept escalates to the principal, who confirms in the app; the offer is then accepted with its receipt', async () => {
    const { account: dana, principal: danaPrincipal, mandate } = await mandatedAccount(stack, { level: 'L1', name: 'Dana Confirmer' });
    const { fromContact } = await connect(stack, alice, dana);
    const document = await offeredNda(danaPrincipal, 'NDA for Dana');
    const made = await offer(alice, document.document_id, { contact_id: fromContact });
    assert.equal(made.status, 201, made.text);
    const escalated = await act(dana, made.body.offer_id, 'accept');
    assert.equal(escalated.status, 200, escalated.text);
    assert.equal(escalated.body.status, 'escalated');
    assert.ok(escalated.body.confirm_url.startsWith(`${stack.config.appUrl}/sign-request/`));
    const event = await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.escalated', (d) => d.offer_id === made.body.offer_id);
    assert.equal(event.data.confirm_url, escalated.body.confirm_url);
    const mail = await waitFor('the confirm mail', () => latestMail(stack, dana.email, 'sign-request'));
    assert.ok(mail.text.includes(escalated.body.confirm_url));
    // Accepting again while the principal decides changes nothing.
    assert.equal((await act(dana, made.body.offer_id, 'accept')).body.status, 'escalated');

    const app = await new AppClient(stack, dana.email).login();
    const link = new URL(escalated.body.confirm_url).pathname;
    const page = await (await app.get(link)).text();
    assert.ok(page.includes('Net 30, NDA as drafted'), 'the confirm page shows the offer’s terms');
    assert.equal((await app.post(`${link}/confirm`, {}, link)).status, 200);
    const accepted = await waitFor('the offer to be accepted', async () => {
      const reply = await call(stack.url, 'GET', `/v1/offers/${made.body.offer_id}`, { key: dana.key });
      return reply.body.status === 'accepted' ? reply.body : undefined;
    });
    assert.equal(accepted.confirmation_level, 'l1');
    assert.equal(accepted.mandate_id, mandate.id);
    const receipt = await verifyReceipt(accepted.receipt_jws);
    assert.equal(receipt.confirmation_level, 'l1');
    assert.deepEqual(receipt.signers[0].principal, { email: dana.email, name: danaPrincipal.name });
    await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.accepted', (d) => d.offer_id === made.body.offer_id);
  });

  it('human_signature_required escalates even an L2 mandate; ack, decline; a decline in the app declines the offer', async () => {
    const fromContact = aliceToBob;
    const first = await offer(alice, (await offeredNda(bobPrincipal, 'Ack then decline')).document_id, { contact_id: fromContact });
    const acked = await act(bob, first.body.offer_id, 'ack');
    assert.equal(acked.body.status, 'acknowledged');
    assert.ok(acked.body.acknowledged_at);
    await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.acked', (d) => d.offer_id === first.body.offer_id);
    assertErrorCode(await act(alice, first.body.offer_id, 'decline'), 409, 'invalid_state');
    const declined = await act(bob, first.body.offer_id, 'decline');
    assert.equal(declined.body.status, 'declined');
    await delivered(hooks.alice.receiver, hooks.alice.secret, 'offer.declined', (d) => d.offer_id === first.body.offer_id);
    assertErrorCode(await act(bob, first.body.offer_id, 'accept'), 409, 'invalid_state');

    const human = await offer(alice, (await offeredNda(bobPrincipal, 'Human only')).document_id, {
      contact_id: fromContact,
      human_signature_required: true,
    });
    assert.equal(human.body.human_signature_required, true);
    const escalated = await act(bob, human.body.offer_id, 'accept');
    assert.equal(escalated.body.status, 'escalated', 'an L2 mandate does not sign when a human signature is required');
    const app = await new AppClient(stack, bob.email).login();
    const link = new URL(escalated.body.confirm_url).pathname;
    assert.equal((await app.post(`${link}/decline`, {}, link)).status, 200);
    await waitFor('the offer to be declined', async () => {
      const reply = await call(stack.url, 'GET', `/v1/offers/${human.body.offer_id}`, { key: alice.key });
      return reply.body.status === 'declined' || undefined;
    });
  });

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
