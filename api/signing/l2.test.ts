// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeMandate } from '../../activities/mandates/mandates';
import { l2AppliesToday } from '../../activities/signing/cap';
import { Apply, Event, Mandate, Template } from '../../db/models';
import { newId } from '../../lib/ids';
import {
  createDocument,
  downloadPdf,
  latestMail,
  type SentNdaOptions,
  SignerSession,
  seedSamples,
  sentNda,
  waitForDocument,
} from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { pdfsig, pdfText } from '../../test/pdf-tools';
import { AppClient, type MandatedAccountOptions, mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

describe('L2: POST /v1/documents/:id/sign', () => {
  let stack: Stack;
  let owner: Account;
  let templates: { nda: Template; services: Template };

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '60000' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    templates = await seedSamples(stack, owner);
  });
  after(() => stack.close());

  /** A principal with an agent key, its appearance stored and (unless told otherwise) an L2 mandate. */
  const agent = <L extends 'L1' | 'L2' | null = 'L2'>(options: MandatedAccountOptions<L> = {}) =>
    mandatedAccount(stack, { name: 'Paula Principal', label: 'contracts agent', ...options });

  /** A sent NDA from the owner where the given account's principal signs as `position` (0: Disclosing, 1: Receiving). */
  const inboundNda = async (signer: Account, options: SentNdaOptions = {}) =>
    sentNda(stack, owner, templates.nda, await principalOf(stack, signer), options);

  const sign = (account: Account, documentId: string, reason = 'Countersign the agreed NDA') =>
    call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: account.key, body: { reason } });

  it('applies the stored appearance at once and reports the mandate, level and hashes', async () => {
    const { account, mandate } = await agent();
    const document = await inboundNda(account);
    const reply = await sign(account, document.document_id);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.status, 'applied');
    assert.equal(reply.body.mandate_id, mandate!.id);
    assert.equal(reply.body.confirmation_level, 'L2');
    assert.equal(reply.body.pre_sign_hash, document.document_hash);
    assert.match(reply.body.document_hash, /^[0-9a-f]{64}$/);
    assert.notEqual(reply.body.document_hash, reply.body.pre_sign_hash);
    assert.equal(reply.body.document_status, 'sent');

    const seen = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: account.key });
    assert.equal(seen.body.signers[0].status, 'signed');
    assert.equal(seen.body.document_hash, reply.body.document_hash);

    const event = await Event.query(stack.deps.db)
      .where({ event: 'document.signed' })
      .whereRaw(`data->>'document_id' = ?`, [document.document_id])
      .first();
    const principal = await principalOf(stack, account);
    assert.deepEqual(event?.data, {
      document_id: document.document_id,
      signer_id: document.signers[0].signer_id,
      principal: { email: principal.email, name: principal.name },
      agent: { api_key_id: account.keyId, label: 'contracts agent' },
      mandate_id: mandate!.id,
      confirmation_level: 'l2',
      pre_sign_hash: reply.body.pre_sign_hash,
      document_hash: reply.body.document_hash,
    });
    const notice = await waitFor(
      'the principal to be e-mailed about the L2 apply',
      () => latestMail(stack, principal.email, 'l2-notice'),
      10_000,
    );
    assert.match(notice.text, new RegExp(mandate!.id));
    assert.match(notice.text, /contracts agent/);
  });

  it('completes with a certificate that names the principal via an authorized agent and the mandate, never the key', async () => {
    const { account, mandate } = await agent({ name: 'Mira Mandator' });
    const document = await inboundNda(account);
    assert.equal((await sign(account, document.document_id)).status, 200);
    const other = await new SignerSession(stack, document.signers[1].sign_url, document.signers[1].email).verify();
    const titleId = templates.nda.widgets.find((w) => w.role === 'Receiving Party' && w.type === 'text')!.id;
    assert.equal(
      (
        await other.request('POST', '/sign', {
          consent: true,
          signature: { method: 'drawn', image: dataUrl(signaturePng()) },
          values: { [titleId]: 'Director' },
        })
      ).status,
      200,
    );
    await waitForDocument(stack, owner.key, document.document_id, (d) => d.status === 'completed', 'the document to complete');
    const pdf = await downloadPdf(stack, owner.key, document.document_id);
    const { valid, report } = await pdfsig(pdf);
    assert.ok(valid, report);
    const text = await pdfText(pdf);
    assert.match(text, /Certificate of Completion/);
    assert.match(text, /Mira Mandator/);
    assert.match(text, /Signer \(via authorized agent\)/);
    assert.ok(text.includes(`Mandate : ${mandate!.id} (L2)`), 'the mandate line');
    assert.ok(!text.includes('contracts agent'), 'the key’s label is not on the document');
    assert.ok(!text.includes(account.keyId), 'the key’s id is not on the document');
    assert.equal((text.match(/Signer \(via authorized agent\)/g) ?? []).length, 1, 'only the mandated signer is marked');

    // The principal's app shows the completed document and serves the same PDF.
    const app = await new AppClient(stack, (await principalOf(stack, account)).email).login();
    const overview = await (await app.get(`${app.appPath}/`)).text();
    assert.match(overview, /data-testid="completed-documents"/);
    const listed = await (await app.get(`${app.appPath}/documents`)).text();
    const link = `${app.appPath}/documents/${document.document_id}/download`;
    assert.ok(listed.includes(link) && listed.includes('Download the completed PDF'), listed);
    const fromApp = await app.get(link);
    assert.equal(fromApp.status, 200);
    assert.deepEqual(Buffer.from(await fromApp.arrayBuffer()), Buffer.from(pdf));
    // Another principal's session gets 404 for it.
    const stranger = await agent({ name: 'Sam Stranger' });
    const other404 = await (await new AppClient(stack, (await principalOf(stack, stranger.account)).email).login()).get(link);
    assert.equal(other404.status, 404);
  });

  it('stamps and certifies the principal’s registered name and e-mail, never the name an agent typed for the signer row', async () => {
    const { account, mandate } = await agent({ name: 'Mira Mandator' });
    const principal = await principalOf(stack, account);
    const bot = 'InvoiceBot (key_x)';
    const provider = { name: 'Pat Provider', email: `pat-${Date.now()}@example.test` };
    const created = await createDocument(stack, owner, {
      template_id: templates.services.id,
      name: 'Services',
      send: true,
      signers: [{ name: bot, email: principal.email }, provider],
    });
    assert.equal(created.status, 201, created.text);
    const documentId = created.body.document_id;
    assert.equal((await sign(account, documentId)).status, 200);

    const signedPdf = await downloadPdf(stack, owner.key, documentId);
    const stamped = await pdfText(signedPdf);
    assert.ok(stamped.includes('Mira Mandator') && stamped.includes(principal.email), 'the name and e-mail widgets carry the principal');
    assert.ok(!stamped.includes('InvoiceBot'), 'the agent’s words are not on the document');
    assert.match(await pdfText(signedPdf, { first: 1, last: 1 }), /\bMM\b/, 'initials come from the principal’s name');
    const seen = await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: owner.key });
    assert.equal(seen.body.signers[0].name, bot, 'what the agent typed stays the row’s label');
    assert.deepEqual(seen.body.signers[0].signed_as, { name: 'Mira Mandator', email: principal.email });

    const signedEvents = await Event.query(stack.deps.db)
      .where({ event: 'document.signed' })
      .whereRaw(`data->>'document_id' = ?`, [documentId]);
    assert.deepEqual(
      signedEvents.map((event) => event.tenant_id).sort(),
      [owner.tenantId, account.tenantId].sort(),
      'the sender and the signing principal’s own tenant',
    );
    for (const event of signedEvents)
      assert.deepEqual((event.data as { principal: unknown }).principal, { email: principal.email, name: 'Mira Mandator' });

    const other = await new SignerSession(stack, created.body.signers[1].sign_url, provider.email).verify();
    assert.equal(
      (await other.request('POST', '/sign', { consent: true, signature: { method: 'drawn', image: dataUrl(signaturePng()) } })).status,
      200,
    );
    await waitForDocument(stack, owner.key, documentId, (d) => d.status === 'completed', 'the document to complete');
    const certificate = await pdfText(await downloadPdf(stack, owner.key, documentId));
    assert.match(certificate, /Certificate of Completion/);
    assert.ok(certificate.includes('Mira Mandator') && !certificate.includes('InvoiceBot'), 'the certificate names the principal');
    assert.ok(certificate.includes(`Mandate : ${mandate!.id} (L2)`));
    const completed = await Event.query(stack.deps.db)
      .where({ event: 'document.completed' })
      .whereRaw(`data->>'document_id' = ?`, [documentId]);
    assert.deepEqual(completed.map((event) => event.tenant_id).sort(), [owner.tenantId, account.tenantId].sort());
    const parties = (completed[0].data as { signers: Array<{ name: string; email: string }> }).signers;
    assert.deepEqual(
      parties.map(({ name, email }) => ({ name, email })),
      [{ name: 'Mira Mandator', email: principal.email }, provider],
    );
  });

  describe('refusals, each with its code', () => {
    it('mandate_required: a key without a mandate', async () => {
      const { account } = await agent({ level: null });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 403, 'mandate_required');
    });

    it('mandate_inactive: a revoked or expired mandate', async () => {
      const { account, mandate } = await agent();
      const document = await inboundNda(account);
      await revokeMandate(stack.deps.db, await principalOf(stack, account), mandate!.id, { type: 'principal', id: account.principalId });
      assertErrorCode(await sign(account, document.document_id), 403, 'mandate_inactive');

      const expiring = await agent();
      await Mandate.query(stack.deps.db)
        .findById(expiring.mandate!.id)
        .patch({ expires_at: new Date(Date.now() - 1000) });
      assertErrorCode(await sign(expiring.account, (await inboundNda(expiring.account)).document_id), 403, 'mandate_inactive');
      const me = await call(stack.url, 'GET', '/v1/me', { key: expiring.account.key });
      assert.equal(me.body.signing_mandate, undefined);
      assert.deepEqual(me.body.allowed_confirmation_levels, []);
    });

    it('confirmation_required: an L1 key', async () => {
      const { account } = await agent({ level: 'L1' });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 403, 'confirmation_required');
    });

    it('feature_disabled: l2_signing off', async () => {
      const { account } = await agent();
      const document = await inboundNda(account);
      const api = await stack.withEnv({ SVC_FF_L2_SIGNING: 'false' });
      try {
        assertErrorCode(
          await call(api.url, 'POST', `/v1/documents/${document.document_id}/sign`, { key: account.key, body: { reason: 'x' } }),
          403,
          'feature_disabled',
        );
      } finally {
        await api.close();
      }
    });

    it('principal_not_signer: a document of the account where the principal does not sign', async () => {
      const { account } = await agent();
      const template = (await seedSamples(stack, account)).nda;
      const created = await createDocument(stack, account, {
        template_id: template.id,
        name: 'Others sign',
        signers: [
          { name: 'A', email: 'a1@example.test' },
          { name: 'B', email: 'b1@example.test' },
        ],
        send: true,
      });
      assertErrorCode(await sign(account, created.body.document_id), 403, 'principal_not_signer');
    });

    it('mandate_scope: an outbound-only mandate and an inbound document', async () => {
      const { account } = await agent({ mode: 'outbound' });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 403, 'mandate_scope');
    });

    it('missing_appearance: no stored signature', async () => {
      const { account } = await agent({ appearance: false });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 422, 'missing_appearance');
    });

    it('unfilled_fields: a required text the appearance cannot fill', async () => {
      const { account } = await agent();
      const reply = await sign(account, (await inboundNda(account, { position: 1 })).document_id);
      assertErrorCode(reply, 422, 'unfilled_fields');
    });

    it('missing_signature_fields: the principal’s role has no signature widget', async () => {
      const { account } = await agent();
      const principal = await principalOf(stack, account);
      const witness = await Template.query(stack.deps.db).insertAndFetch({
        ...templates.nda,
        id: newId('tpl'),
        roles: ['Party', 'Witness'],
        widgets: [
          { id: 'p-sig', type: 'signature', role: 'Party', page: 1, x: 50, y: 600, width: 200, height: 40, required: true },
          { id: 'w-name', type: 'name', role: 'Witness', page: 1, x: 300, y: 600, width: 200, height: 20, required: true },
        ],
      } as Partial<Template>);
      const created = await createDocument(stack, owner, {
        template_id: witness.id,
        name: 'Witnessed',
        signers: [
          { name: 'P', email: 'p2@example.test' },
          { name: principal.name, email: principal.email },
        ],
        send: true,
      });
      assertErrorCode(await sign(account, created.body.document_id), 422, 'missing_signature_fields');
    });

    it('already_signed: a second apply', async () => {
      const { account } = await agent();
      const document = await inboundNda(account);
      assert.equal((await sign(account, document.document_id)).status, 200);
      assertErrorCode(await sign(account, document.document_id), 409, 'already_signed');
    });

    it('strict_order: an earlier signer has not signed', async () => {
      const { account } = await agent();
      assertErrorCode(await sign(account, (await inboundNda(account, { position: 1, strict: true })).document_id), 409, 'strict_order');
    });

    it('invalid_state: a draft', async () => {
      const { account } = await agent();
      const principal = await principalOf(stack, account);
      const template = (await seedSamples(stack, account)).nda;
      const draft = await createDocument(stack, account, {
        template_id: template.id,
        name: 'Draft',
        signers: [
          { name: principal.name, email: principal.email },
          { name: 'B', email: 'b3@example.test' },
        ],
      });
      assertErrorCode(await sign(account, draft.body.document_id), 409, 'invalid_state');
    });

    it('sign_failed: the stamp cannot be drawn (a stored template widget off its PDF)', async () => {
      const { account } = await agent();
      const principal = await principalOf(stack, account);
      const broken = await Template.query(stack.deps.db).insertAndFetch({
        ...templates.nda,
        id: newId('tpl'),
        roles: ['Party'],
        widgets: [{ id: 'far', type: 'signature', role: 'Party', page: 7, x: 10, y: 10, width: 100, height: 30, required: true }],
      } as Partial<Template>);
      const created = await createDocument(stack, owner, {
        template_id: broken.id,
        name: 'Broken',
        signers: [{ name: principal.name, email: principal.email }],
        send: true,
      });
      const reply = await sign(account, created.body.document_id);
      assertErrorCode(reply, 502, 'sign_failed');
      const apply = await Apply.query(stack.deps.db).where({ document_id: created.body.document_id }).first();
      assert.equal(apply?.status, 'rejected');
      const usage = await stack.deps
        .db('mandate_daily_usage')
        .whereIn(
          'mandate_id',
          (await Mandate.query(stack.deps.db).where({ api_key_id: account.keyId })).map((m) => m.id),
        )
        .first();
      assert.equal(Number(usage?.count ?? 0), 0, 'a refused apply gives its daily slot back');
    });

    it('404: a document of another tenant where the principal does not sign', async () => {
      const { account } = await agent();
      const created = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'Not yours',
        signers: [
          { name: 'A', email: 'a4@example.test' },
          { name: 'B', email: 'b4@example.test' },
        ],
        send: true,
      });
      assertErrorCode(await sign(account, created.body.document_id), 404, 'not_found');
      assertErrorCode(
        await call(stack.url, 'POST', '/v1/documents/doc_nonexistent/sign', { key: account.key, body: { reason: 'x' } }),
        404,
        'not_found',
      );
    });

    it('400: a missing reason', async () => {
      const { account } = await agent();
      const reply = await call(stack.url, 'POST', `/v1/documents/${(await inboundNda(account)).document_id}/sign`, {
        key: account.key,
        body: {},
      });
      assertErrorCode(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].path, 'reason');
    });
  });

  it('takes one cap slot for two concurrent applies on one document, and applies once', async () => {
    const { account, mandate } = await agent();
    const document = await inboundNda(account);
    const replies = await Promise.all([sign(account, document.document_id), sign(account, document.document_id)]);
    for (const reply of replies)
      assert.ok(reply.status === 200 || (reply.status === 409 && reply.body.error.code === 'already_signed'), reply.text);
    assert.ok(replies.some((reply) => reply.status === 200));
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 1, 'one apply');
    assert.equal(await l2AppliesToday(stack.deps.db, mandate!.id), 1, 'one slot');
  });

  it('rate_limited: of 50 concurrent applies under one mandate, exactly 25 land; the rest get 429 with Retry-After', async () => {
    const { account, mandate } = await agent();
    const documents = [];
    for (let i = 0; i < 50; i += 1) documents.push(await inboundNda(account));
    const replies = await Promise.all(documents.map((document) => sign(account, document.document_id, `batch ${document.document_id}`)));
    const limited = replies.filter((reply) => reply.status === 429);
    const applied = replies.filter((reply) => reply.status === 200);
    assert.equal(limited.length, 25, `429s: ${limited.length}; statuses: ${replies.map((r) => r.status).join(',')}`);
    assert.equal(applied.length, 25);
    for (const reply of limited) {
      assert.equal(reply.body.error.code, 'rate_limited');
      const retryAfter = Number(reply.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    }
    const signed = await Apply.query(stack.deps.db).where({ mandate_id: mandate!.id, status: 'applied' }).resultSize();
    assert.equal(signed, 25);
    const listed = await call(stack.url, 'GET', `/v1/mandates/${mandate!.id}`, { key: account.key });
    assert.equal(listed.body.l2_applies_today, 25);
    assert.equal(listed.body.daily_l2_cap, 25);
  });
});

describe('L2 sign retried with its Idempotency-Key after 202 processing', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    // The apply pauses 2.5 s in its activity and the request waits 0.3 s: the first answer is 202.
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '300', SVC_FAULT_APPLY_PAUSE_MS: '2500' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  it('answers that apply’s outcome (202 while it runs, then 200 applied, even with no worker left) instead of signing again or 409 already_signed', async () => {
    const { account } = await mandatedAccount(stack, { name: 'Rhea Retry', label: 'retrying agent' });
    const document = await sentNda(stack, owner, nda, await principalOf(stack, account));
    const sign = (key?: string) =>
      call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
        key: account.key,
        body: { reason: 'Countersign' },
        headers: key ? { 'idempotency-key': key } : {},
      });

    const first = await sign('retry-after-202');
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.status, 'processing');
    const meanwhile = await sign('retry-after-202');
    assert.equal(meanwhile.status, 202, meanwhile.text);
    assert.equal(meanwhile.headers.get('idempotent-replayed'), 'true');

    await waitFor(
      'the apply',
      async () => (await Apply.query(stack.deps.db).where({ document_id: document.document_id }).first())?.status === 'applied',
      20_000,
    );
    // The worker is gone (killed, say): the workflow cannot answer the update, and the retry must not
    // wait on it for an apply the database already records as made.
    await stack.worker!.stop();
    const done = await sign('retry-after-202');
    assert.equal(done.status, 200, done.text);
    assert.equal(done.headers.get('idempotent-replayed'), 'true');
    assert.equal(done.body.status, 'applied');
    assert.match(done.body.document_hash, /^[0-9a-f]{64}$/);
    const again = await sign('retry-after-202');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, done.body, 'the final answer is kept');

    assertErrorCode(await sign(), 409, 'already_signed');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 1, 'one apply');
  });
});
