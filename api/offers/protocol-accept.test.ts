// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { connect } from '../../test/contacts';
import { downloadPdf, latestMail, waitForDocument } from '../../test/documents';
import {
  act,
  alice,
  aliceToBob,
  bob,
  bobMandate,
  bobPrincipal,
  bobToAlice,
  carlSigns,
  delivered,
  hooks,
  inboxes,
  offer,
  offeredNda,
  stack,
  useProtocolStack,
  verifyReceipt,
} from '../../test/fixtures/offers-protocol';
import { assertErrorCode, call } from '../../test/http';
import { pdfAttachments, pdfsig, pdfText } from '../../test/pdf-tools';
import { AppClient, mandatedAccount } from '../../test/principal';
import { waitFor } from '../../test/wait';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('agent contacts and offers: the protocol between two tenants', () => {
  useProtocolStack();

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
});
