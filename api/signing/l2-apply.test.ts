// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { l2AppliesToday } from '../../activities/apply/cap';
import { Apply, Event, Mandate } from '../../db/models';
import { createDocument, downloadPdf, latestMail, SignerSession, waitForDocument } from '../../test/documents';
import { agent, inboundNda, owner, sign, stack, templates, useL2Stack } from '../../test/fixtures/signing-l2';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { pdfsig, pdfText } from '../../test/pdf-tools';
import { AppClient, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

describe('L2: POST /v1/documents/:id/sign', () => {
  useL2Stack();

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
      mandate_credential: (await Mandate.query(stack.deps.db).findById(mandate!.id))!.credential_jws,
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
    // Listed among the completed documents, its page offers the completed PDF.
    const listed = await (await app.get(`${app.appPath}/documents?section=completed`)).text();
    const page = `${app.appPath}/documents/${document.document_id}`;
    assert.ok(listed.includes(`href="${page}"`), listed);
    const shown = await (await app.get(page)).text();
    const link = `${page}/download`;
    assert.ok(shown.includes(link) && shown.includes('Download the completed PDF'), shown);
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
