// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEvent, type Principal, type Template } from '../../db/models';
import { connect } from '../../test/contacts';
import { createDocument, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, mandatedAccount } from '../../test/principal';
import { documentedVerifier, Receiver, selfSignedCertificate, type Verify } from '../../test/receiver';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { documentWorkflowId } from '../../workflows/document/shared';
import { offerWorkflowId } from '../../workflows/offer/shared';
import { signRequestWorkflowId } from '../../workflows/signing/shared';
import { transferWorkflowId } from '../../workflows/transfer/shared';

describe('a sent document’s reminders, expiry, remind and void', () => {
  let stack: Stack;
  let alice: Account;
  let bob: Account;
  let bobPrincipal: Principal;
  let stranger: Account;
  let nda: Template;
  let aliceToBob: string;
  let hooks: Receiver;
  let hookSecret: string;
  let verify: Verify;
  const seen = (to: string, purpose: string) => stack.smtp!.mails.filter((mail) => mail.to.includes(to) && mail.purpose === purpose);
  const unique = (name: string) => ({ name, email: `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}@example.test` });

  before(async () => {
    const tls = selfSignedCertificate();
    verify = await documentedVerifier();
    stack = await startStack({
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
    ({ account: alice } = await mandatedAccount(stack, { level: 'L2', name: 'Alice Sender', label: 'alice agent' }));
    ({ account: bob, principal: bobPrincipal } = await mandatedAccount(stack, { level: 'L1', name: 'Bob Signer', label: 'bob agent' }));
    stranger = await createAccount(stack.deps.db, { name: 'Sam Stranger' });
    ({ nda } = await seedSamples(stack, alice));
    ({ fromContact: aliceToBob } = await connect(stack, alice, bob));
    hooks = await new Receiver(tls).start();
    const hook = await call(stack.url, 'POST', '/v1/webhooks', { key: alice.key, body: { url: hooks.url } });
    assert.equal(hook.status, 201, hook.text);
    hookSecret = hook.body.secret;
  });
  after(async () => {
    await hooks?.stop();
    await stack.close();
  });

  /** The events of `name` delivered to Alice's webhook (signature checked) whose data matches. */
  const delivered = (name: string, match: (data: any) => boolean, count = 1) =>
    waitFor(`${count} × ${name}`, () => {
      const found = hooks.received
        .map((entry) => ({ entry, body: JSON.parse(entry.body) }))
        .filter(({ body }) => body.event === name && match(body.data));
      if (found.length < count) return undefined;
      for (const { entry } of found) assert.ok(verify(hookSecret, String(entry.headers['x-webhook-signature']), entry.body));
      return found.map(({ body }) => body);
    });
  const auditOf = (documentId: string, action: string) =>
    AuditEvent.query(stack.deps.db).where({ document_id: documentId, action }).orderBy('created_at');
  const workflowEnd = (documentId: string) => stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId)).result();
  /** The workflows of what ended with the document (the L1 request's, the offer's) were woken and finished. */
  const ended = (workflowIds: string[]) =>
    waitFor(`${workflowIds.join(', ')} to finish`, async () => {
      const states = await Promise.all(
        workflowIds.map(async (workflowId) => (await stack.deps.temporal.client.workflow.getHandle(workflowId).describe()).status.name),
      );
      return states.every((state) => state === 'COMPLETED') ? states : undefined;
    });
  const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

  /** Alice's NDA, signed by Bob's principal first and a browser signer second, with the open work an agent leaves on it: an L1 request, an offer and a sign-to-unlock package. */
  async function ndaWithOpenWork(extra: Record<string, unknown> = {}) {
    const carl = unique('Carl Browser');
    const created = await createDocument(stack, alice, {
      template_id: nda.id,
      name: 'Lifecycle NDA',
      signers: [{ name: bobPrincipal.name, email: bobPrincipal.email }, carl],
      send: true,
      ...extra,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.document_id as string;
    const request = await call(stack.url, 'POST', `/v1/documents/${id}/sign-requests`, {
      key: bob.key,
      body: { reason: 'Please confirm' },
    });
    assert.equal(request.status, 201, request.text);
    const offer = await call(stack.url, 'POST', `/v1/documents/${id}/offers`, {
      key: alice.key,
      body: { contact_id: aliceToBob, terms: 'As drafted' },
    });
    assert.equal(offer.status, 201, offer.text);
    const sample = (await driveSamples())[0];
    const file = await call(stack.url, 'POST', `/v1/assets?filename=${sample.name}`, {
      key: alice.key,
      raw: sample.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(file.status, 201, file.text);
    const transfer = await call(stack.url, 'POST', '/v1/transfers', {
      key: alice.key,
      body: { name: 'Unlocks on signing', drive_file_ids: [file.body.drive_file_id], recipients: [carl], document_id: id },
    });
    assert.equal(transfer.status, 201, transfer.text);
    const offered = await call(stack.url, 'POST', `/v1/transfers/${transfer.body.transfer_id}/offer`, {
      key: alice.key,
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
  const signLink = (url: string) => fetch(`${stack.url}${new URL(url).pathname}`);

  describe('creating with expires_at and reminders', () => {
    it('stores and shows them, and refuses a past expires_at or a duration out of bounds (400, the field named)', async () => {
      const signers = [unique('Vera Valid'), unique('Walt Valid')];
      const expiresAt = inSeconds(3600);
      const made = await createDocument(stack, alice, {
        template_id: nda.id,
        name: 'With waits',
        signers,
        expires_at: expiresAt,
        reminders: { first_after: 'P1D', every: 'PT12H', max: 3 },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.expires_at, expiresAt);
      assert.deepEqual(made.body.reminders, { first_after: 'P1D', every: 'PT12H', max: 3 });
      const read = await call(stack.url, 'GET', `/v1/documents/${made.body.document_id}`, { key: alice.key });
      assert.equal(read.body.expires_at, expiresAt);
      assert.deepEqual(read.body.reminders, { first_after: 'P1D', every: 'PT12H', max: 3 });
      const defaults = await createDocument(stack, alice, {
        template_id: nda.id,
        name: 'Defaults',
        signers,
        reminders: { first_after: 'PT2S' },
      });
      assert.deepEqual(defaults.body.reminders, { first_after: 'PT2S', every: 'PT2S', max: 1 });
      assert.equal(defaults.body.expires_at, null);

      const refused = async (body: Record<string, unknown>, path: string) => {
        const reply = await createDocument(stack, alice, { template_id: nda.id, name: 'Refused', signers, ...body });
        assertErrorCode(reply, 400, 'invalid_request');
        assert.ok(
          reply.body.error.details.some((detail: { path: string }) => detail.path.endsWith(path)),
          `${path} named in ${reply.text}`,
        );
      };
      await refused({ expires_at: inSeconds(-60) }, 'expires_at');
      await refused({ expires_at: 'tomorrow' }, 'expires_at');
      await refused({ expires_at: inSeconds(0.2) }, 'expires_at');
      await refused({ expires_at: inSeconds(400 * 24 * 3600) }, 'expires_at');
      await refused({ reminders: { first_after: 'P1M' } }, 'reminders.first_after');
      await refused({ reminders: { first_after: 'PT0.5S' } }, 'reminders.first_after');
      await refused({ reminders: { first_after: 'PT1S', every: 'soon' } }, 'reminders.every');
      await refused({ reminders: { first_after: 'PT1S', max: 0 } }, 'reminders.max');
      await refused({ reminders: { first_after: 'PT1S', often: true } }, 'reminders.often');
    });
  });

  describe('reminders on schedule', () => {
    it('re-mails only the signer whose turn it is under strict order, round by round, and stops at max', async () => {
      const [first, second] = [unique('Fay First'), unique('Sid Second')];
      const created = await createDocument(stack, alice, {
        template_id: nda.id,
        name: 'Reminded NDA',
        signers: [first, second],
        send: true,
        strict_order: true,
        reminders: { first_after: 'PT1S', every: 'PT1S', max: 2 },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.document_id;
      const events = await delivered('document.reminded', (data) => data.document_id === id, 2);
      assert.deepEqual(
        events.map((event) => [event.data.signer.email, event.data.trigger, event.data.round]),
        [
          [first.email, 'schedule', 1],
          [first.email, 'schedule', 2],
        ],
      );
      const reminders = await waitFor('two reminder mails', () =>
        seen(first.email, 'sign-reminder').length >= 2 ? seen(first.email, 'sign-reminder') : undefined,
      );
      assert.match(reminders[0].text, new RegExp(new URL(created.body.signers[0].sign_url).pathname));
      // Two more intervals pass: max is 2, and the second signer's turn has not come.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(seen(first.email, 'sign-reminder').length, 2);
      assert.equal(seen(second.email, 'sign-reminder').length, 0);
      assert.equal(seen(second.email, 'sign-invite').length, 0);
      const lines = await auditOf(id, 'document.reminded');
      assert.deepEqual(
        lines.map((line) => [line.actor_type, (line.data as any).round]),
        [
          ['system', 1],
          ['system', 2],
        ],
      );
    });
  });

  describe('remind now', () => {
    it('mails every pending signer at once, then answers 429 rate_limited with Retry-After while they were reminded too recently', async () => {
      const signers = [unique('Rita Remind'), unique('Ravi Remind')];
      const created = await createDocument(stack, alice, { template_id: nda.id, name: 'Remind me', signers, send: true });
      const id = created.body.document_id;
      assertErrorCode(await call(stack.url, 'POST', `/v1/documents/${id}/remind`), 401, 'unauthorized');
      assertErrorCode(await call(stack.url, 'POST', `/v1/documents/${id}/remind`, { key: stranger.key }), 404, 'not_found');
      const reminded = await call(stack.url, 'POST', `/v1/documents/${id}/remind`, { key: alice.key });
      assert.equal(reminded.status, 200, reminded.text);
      assert.deepEqual(
        reminded.body.reminded.map((signer: { email: string }) => signer.email),
        signers.map((signer) => signer.email),
      );
      for (const signer of signers)
        await waitFor(`the reminder to ${signer.email}`, () => stack.smtp!.latest(signer.email, 'sign-reminder'));
      const events = await delivered('document.reminded', (data) => data.document_id === id, 2);
      assert.ok(events.every((event) => event.data.trigger === 'remind' && event.data.round === null));
      const [line] = await auditOf(id, 'document.reminded');
      assert.equal(line.actor_type, 'agent');
      assert.equal(line.actor_id, alice.keyId);

      const again = await call(stack.url, 'POST', `/v1/documents/${id}/remind`, { key: alice.key });
      assertErrorCode(again, 429, 'rate_limited');
      const retryAfter = Number(again.headers.get('retry-after'));
      assert.ok(retryAfter > 50 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(seen(signers[0].email, 'sign-reminder').length, 1, 'nobody was mailed twice');

      const draft = await createDocument(stack, alice, { template_id: nda.id, name: 'Draft', signers });
      assertErrorCode(
        await call(stack.url, 'POST', `/v1/documents/${draft.body.document_id}/remind`, { key: alice.key }),
        409,
        'invalid_state',
      );
    });
  });

  describe('expiry', () => {
    it('at expires_at: expired, its sign links say so, the L1 request and the offer expire, the package is blocked, document.expired is delivered', async () => {
      const work = await ndaWithOpenWork({ expires_at: inSeconds(6) });
      const document = await waitFor(
        'the document to expire',
        async () => {
          const reply = await call(stack.url, 'GET', `/v1/documents/${work.id}`, { key: alice.key });
          return reply.body.status === 'expired' ? reply.body : undefined;
        },
        30_000,
      );
      assert.ok(document.expired_at);
      assert.deepEqual(await workflowEnd(work.id), { status: 'expired' });
      const page = await signLink(work.carlLink);
      assert.equal(page.status, 410);
      assert.match(await page.text(), /This document expired/);
      const code = await call(stack.url, 'POST', `${new URL(work.carlLink).pathname}/code`);
      assertErrorCode(code, 410, 'expired');
      const request = await call(stack.url, 'GET', `/v1/sign-requests/${work.requestId}`, { key: bob.key });
      assert.equal(request.body.status, 'expired');
      assert.equal(request.body.error.code, 'expired');
      const offer = await call(stack.url, 'GET', `/v1/offers/${work.offerId}`, { key: alice.key });
      assert.equal(offer.body.status, 'expired');
      const transfer = await waitFor('the package to be blocked', async () => {
        const reply = await call(stack.url, 'GET', `/v1/transfers/${work.transferId}`, { key: alice.key });
        return reply.body.blocked_reason ? reply.body : undefined;
      });
      assert.equal(transfer.can_release, false);
      assert.match(transfer.blocked_reason, /expired/);
      await ended([signRequestWorkflowId(work.requestId), offerWorkflowId(work.offerId), transferWorkflowId(work.transferId)]);
      const [event] = await delivered('document.expired', (data) => data.document_id === work.id);
      assert.equal(event.data.expires_at, document.expires_at);
      await delivered('offer.expired', (data) => data.offer_id === work.offerId);
      assert.equal((await auditOf(work.id, 'document.expired')).length, 1);
      assertErrorCode(
        await call(stack.url, 'POST', `/v1/documents/${work.id}/void`, { key: alice.key, body: { reason: 'late' } }),
        409,
        'invalid_state',
      );
      assertErrorCode(await call(stack.url, 'POST', `/v1/documents/${work.id}/remind`, { key: alice.key }), 409, 'invalid_state');
    });
  });

  describe('void', () => {
    it('voids a sent document: the reason on its sign links, the L1 request and offer ended, the package cancelled, signers mailed, document.voided delivered', async () => {
      const work = await ndaWithOpenWork();
      const path = `/v1/documents/${work.id}/void`;
      assertErrorCode(await call(stack.url, 'POST', path, { key: alice.key, body: {} }), 400, 'invalid_request');
      assertErrorCode(await call(stack.url, 'POST', path, { key: alice.key, body: { reason: 'x'.repeat(1001) } }), 400, 'invalid_request');
      assertErrorCode(await call(stack.url, 'POST', path, { key: stranger.key, body: { reason: 'Not yours' } }), 404, 'not_found');
      // Bob signs it (inbound) but it is not his account's document.
      assertErrorCode(await call(stack.url, 'POST', path, { key: bob.key, body: { reason: 'Not mine' } }), 404, 'not_found');

      const voided = await call(stack.url, 'POST', path, { key: alice.key, body: { reason: 'Terms changed <b>a lot</b>' } });
      assert.equal(voided.status, 200, voided.text);
      assert.equal(voided.body.status, 'voided');
      assert.equal(voided.body.void_reason, 'Terms changed <b>a lot</b>');
      assert.ok(voided.body.voided_at);
      assert.deepEqual(await workflowEnd(work.id), { status: 'settled' });

      const page = await signLink(work.carlLink);
      assert.equal(page.status, 410);
      const text = await page.text();
      assert.match(text, /This document was voided/);
      assert.match(text, /Terms changed &lt;b&gt;a lot&lt;\/b&gt;/);
      const request = await call(stack.url, 'GET', `/v1/sign-requests/${work.requestId}`, { key: bob.key });
      assert.equal(request.body.status, 'expired');
      assert.match(request.body.error.message, /voided.*Terms changed/);
      const offer = await call(stack.url, 'GET', `/v1/offers/${work.offerId}`, { key: alice.key });
      assert.equal(offer.body.status, 'expired');
      const transfer = await call(stack.url, 'GET', `/v1/transfers/${work.transferId}`, { key: alice.key });
      assert.equal(transfer.body.status, 'cancelled');
      await ended([signRequestWorkflowId(work.requestId), offerWorkflowId(work.offerId), transferWorkflowId(work.transferId)]);
      for (const email of [bobPrincipal.email, work.carl.email]) {
        const mail = await waitFor(`the void mail to ${email}`, () => stack.smtp!.latest(email, 'document-voided'));
        assert.match(mail.text, /Terms changed <b>a lot<\/b>/);
      }
      const [event] = await delivered('document.voided', (data) => data.document_id === work.id);
      assert.deepEqual(event.data.voided_by, { type: 'agent', id: alice.keyId });
      assert.equal(event.data.reason, 'Terms changed <b>a lot</b>');
      const [line] = await auditOf(work.id, 'document.voided');
      assert.equal(line.actor_type, 'agent');
      assert.deepEqual((line.data as any).transfers, [work.transferId]);

      assertErrorCode(await call(stack.url, 'POST', path, { key: alice.key, body: { reason: 'again' } }), 409, 'invalid_state');
      const signed = await call(stack.url, 'POST', `/v1/documents/${work.id}/sign-requests`, { key: bob.key, body: { reason: 'late' } });
      assert.equal(signed.status, 409, signed.text);
    });

    it('in the app, only the owner principal voids (a signer gets 403 not_owner, anyone else 404) and is sent back to the document', async () => {
      const created = await createDocument(stack, alice, {
        template_id: nda.id,
        name: 'App void',
        signers: [{ name: bobPrincipal.name, email: bobPrincipal.email }, unique('Dan Other')],
        send: true,
      });
      const id = created.body.document_id;
      const [owner, signer, outsider] = await Promise.all([
        new AppClient(stack, alice.email).login(),
        new AppClient(stack, bob.email).login(),
        new AppClient(stack, stranger.email).login(),
      ]);
      const path = `${owner.appPath}/documents/${id}/void`;
      const from = `${owner.appPath}/documents`;
      assert.equal((await owner.post(path, { reason: 'no token' })).status, 400);
      assert.equal((await signer.post(path, { reason: 'mine?' }, from)).status, 403);
      assert.equal((await outsider.post(path, { reason: 'mine?' }, from)).status, 404);
      assert.equal((await owner.post(`${owner.appPath}/documents/doc_nosuchdocument0000/void`, { reason: 'x' }, from)).status, 404);
      assert.equal((await owner.post(path, { reason: '' }, from)).status, 400);
      const done = await owner.post(path, { reason: 'Sent by mistake' }, from);
      assert.equal(done.status, 302);
      assert.equal(done.headers.get('location'), `${owner.appPath}/documents/${id}?done=voided`);
      const read = await call(stack.url, 'GET', `/v1/documents/${id}`, { key: alice.key });
      assert.equal(read.body.status, 'voided');
      assert.equal(read.body.void_reason, 'Sent by mistake');
      const [event] = await delivered('document.voided', (data) => data.document_id === id);
      assert.deepEqual(event.data.voided_by, { type: 'principal', id: alice.principalId });
    });
  });
});
