// The world of a sent document's waits and endings (api/documents/reminders.test.ts, lifecycle.test.ts): a
// stack with short reminder and expiry bounds, Alice (L2) who sends, Bob (L1) who signs inbound and is
// her contact, a stranger, Alice's webhook with its verifier, and what the tests look at.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { AuditEvent, type Principal, type Template } from '../db/models';
import { documentWorkflowId } from '../workflows/document/shared';
import { connect } from './contacts';
import { createDocument, seedSamples } from './documents';
import { type Account, createAccount } from './factories';
import { driveSamples } from './files';
import { call } from './http';
import { mandatedAccount } from './principal';
import { documentedVerifier, Receiver, selfSignedCertificate, type Verify } from './receiver';
import { type Stack, startStack } from './stack';
import { waitFor } from './wait';

/** A signer no other test uses: `name`, and an address made of it and the time. */
export const unique = (name: string) => ({ name, email: `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}@example.test` });
/** An instant `seconds` from now, as the API takes it. */
export const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

export interface Lifecycle {
  stack: Stack;
  alice: Account;
  bob: Account;
  bobPrincipal: Principal;
  stranger: Account;
  nda: Template;
  aliceToBob: string;
  hooks: Receiver;
  hookSecret: string;
  verify: Verify;
}

/**
 * The world, made before the calling describe's tests and closed after them; its helpers read it when
 * called. (A test reads `world.stack` and the others once `before` ran.)
 */
export function lifecycleWorld() {
  const world = {} as Lifecycle;
  before(async () => {
    const tls = selfSignedCertificate();
    world.verify = await documentedVerifier();
    const stack = await startStack({
      env: {
        SVC_REMINDER_MIN_MS: '1000',
        SVC_EXPIRY_MIN_MS: '1000',
        SVC_REMIND_INTERVAL_MS: '60000',
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
        SVC_WEBHOOK_RETRY_MAX_MS: '800',
        SVC_OUTBOX_POLL_MS: '100',
      },
    });
    world.stack = stack;
    const { account: alice } = await mandatedAccount(stack, { level: 'L2', name: 'Alice Sender', label: 'alice agent' });
    const { account: bob, principal: bobPrincipal } = await mandatedAccount(stack, { level: 'L1', name: 'Bob Signer', label: 'bob agent' });
    const stranger = await createAccount(stack.deps.db, { name: 'Sam Stranger' });
    const { nda } = await seedSamples(stack, alice);
    const { fromContact: aliceToBob } = await connect(stack, alice, bob);
    const hooks = await new Receiver(tls).start();
    world.hooks = hooks;
    const hook = await call(stack.url, 'POST', '/v1/webhooks', { key: alice.key, body: { url: hooks.url } });
    assert.equal(hook.status, 201, hook.text);
    Object.assign(world, { stack, alice, bob, bobPrincipal, stranger, nda, aliceToBob, hooks, hookSecret: hook.body.secret });
  });
  after(async () => {
    await world.hooks?.stop();
    await world.stack?.close();
  });

  /** The mails of `purpose` sent to `to`. */
  const seen = (to: string, purpose: string) => world.stack.smtp!.mails.filter((mail) => mail.to.includes(to) && mail.purpose === purpose);
  /** The events of `name` delivered to Alice's webhook (signature checked) whose data matches. */
  const delivered = (name: string, match: (data: any) => boolean, count = 1) =>
    waitFor(`${count} × ${name}`, () => {
      const found = world.hooks.received
        .map((entry) => ({ entry, body: JSON.parse(entry.body) }))
        .filter(({ body }) => body.event === name && match(body.data));
      if (found.length < count) return undefined;
      for (const { entry } of found) assert.ok(world.verify(world.hookSecret, String(entry.headers['x-webhook-signature']), entry.body));
      return found.map(({ body }) => body);
    });
  const auditOf = (documentId: string, action: string) =>
    AuditEvent.query(world.stack.deps.db).where({ document_id: documentId, action }).orderBy('created_at');
  const workflowEnd = (documentId: string) => world.stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId)).result();
  /** The workflows of what ended with the document (the L1 request's, the offer's) were woken and finished. */
  const ended = (workflowIds: string[]) =>
    waitFor(`${workflowIds.join(', ')} to finish`, async () => {
      const states = await Promise.all(
        workflowIds.map(
          async (workflowId) => (await world.stack.deps.temporal.client.workflow.getHandle(workflowId).describe()).status.name,
        ),
      );
      return states.every((state) => state === 'COMPLETED') ? states : undefined;
    });
  /** Alice's NDA, signed by Bob's principal first and a browser signer second, with the open work an agent leaves on it: an L1 request, an offer and a sign-to-unlock package. */
  async function ndaWithOpenWork(extra: Record<string, unknown> = {}) {
    const carl = unique('Carl Browser');
    const created = await createDocument(world.stack, world.alice, {
      template_id: world.nda.id,
      name: 'Lifecycle NDA',
      signers: [{ name: world.bobPrincipal.name, email: world.bobPrincipal.email }, carl],
      send: true,
      ...extra,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.document_id as string;
    const request = await call(world.stack.url, 'POST', `/v1/documents/${id}/sign-requests`, {
      key: world.bob.key,
      body: { reason: 'Please confirm' },
    });
    assert.equal(request.status, 201, request.text);
    const offer = await call(world.stack.url, 'POST', `/v1/documents/${id}/offers`, {
      key: world.alice.key,
      body: { contact_id: world.aliceToBob, terms: 'As drafted' },
    });
    assert.equal(offer.status, 201, offer.text);
    const sample = (await driveSamples())[0];
    const file = await call(world.stack.url, 'POST', `/v1/assets?filename=${sample.name}`, {
      key: world.alice.key,
      raw: sample.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(file.status, 201, file.text);
    const transfer = await call(world.stack.url, 'POST', '/v1/transfers', {
      key: world.alice.key,
      body: { name: 'Unlocks on signing', drive_file_ids: [file.body.drive_file_id], recipients: [carl], document_id: id },
    });
    assert.equal(transfer.status, 201, transfer.text);
    const offered = await call(world.stack.url, 'POST', `/v1/transfers/${transfer.body.transfer_id}/offer`, {
      key: world.alice.key,
      body: { confirm: true },
    });
    assert.equal(offered.status, 200, offered.text);
    return {
      id,
      carl,
      bobLink: created.body.signers[0].sign_url as string,
      carlLink: created.body.signers[1].sign_url as string,
      requestId: request.body.sign_request_id as string,
      offerId: offer.body.offer_id as string,
      transferId: transfer.body.transfer_id as string,
    };
  }
  /** A signer's sign link, opened. */
  const signLink = (url: string) => fetch(`${world.stack.url}${new URL(url).pathname}`);

  return Object.assign(world, { seen, delivered, auditOf, workflowEnd, ended, ndaWithOpenWork, signLink });
}
