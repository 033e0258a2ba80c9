// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Template } from '../../db/models';
import { randomBase62 } from '../../lib/ids';
import { buildSampleNda } from '../../lib/pdf/samples';
import { developmentSealer } from '../../lib/pdf/sealer';
import { createDocument, downloadPdf, SignerSession, seedSamples, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { tempDir } from '../../test/pdf-tools';
import { type Stack, startStack } from '../../test/stack';

describe('POST /v1/verify: anyone can check a PDF', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;
  let completed: { id: string; pdf: Buffer; signers: string[] };

  before(async () => {
    stack = await startStack({ env: { SVC_VERIFY_LIMIT_BYTES: String(2 * 1024 * 1024) } });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
    const tag = randomBase62(6).toLowerCase();
    const signers = [
      { name: 'Dana Discloser', email: `dana-${tag}@example.test` },
      { name: 'Rey Receiver', email: `rey-${tag}@example.test` },
    ];
    const created = await createDocument(stack, owner, { template_id: nda.id, name: 'Verified NDA', signers, send: true });
    assert.equal(created.status, 201, created.text);
    const id = created.body.document_id;
    for (const [index, signer] of created.body.signers.entries()) {
      const session = await new SignerSession(stack, signer.sign_url, signer.email).verify();
      const values = index === 1 ? { 'receiving-title': 'Counsel' } : {};
      const signed = await session.request('POST', '/sign', {
        consent: true,
        signature: { method: 'drawn', image: dataUrl(signaturePng()) },
        values,
      });
      assert.equal(signed.status, 200, signed.text);
    }
    await waitForDocument(stack, owner.key, id, (document) => document.status === 'completed', 'completed');
    completed = { id, pdf: await downloadPdf(stack, owner.key, id), signers: signers.map((signer) => signer.email) };
  });
  after(() => stack?.close());

  const verify = (pdf: Uint8Array, type = 'application/pdf') =>
    call(stack.url, 'POST', '/v1/verify', { raw: Buffer.from(pdf), headers: { 'content-type': type } });

  it('reports a completed PDF the service issued as valid, names the document and who signed it and how; no key needed', async () => {
    const report = await verify(completed.pdf);
    assert.equal(report.status, 200, report.text);
    const body = report.body;
    assert.equal(body.valid, true, JSON.stringify(body.problems));
    assert.equal(body.issued_by_this_service, true);
    assert.equal(body.document_id, completed.id);
    assert.equal(body.completed, true);
    assert.equal(body.revision, 3);
    assert.equal(body.modified_after_seal, false);
    assert.deepEqual(body.problems, []);
    assert.deepEqual(
      body.signatures.map((signature: { kind: string; subfilter: string; valid: boolean; covers_whole_document: boolean }) => [
        signature.kind,
        signature.subfilter,
        signature.valid,
        signature.covers_whole_document,
      ]),
      [
        ['certification', 'ETSI.CAdES.detached', true, false],
        ['timestamp', 'ETSI.RFC3161', true, true],
      ],
    );
    assert.match(body.signatures[0].timestamp.tsa, /Timestamp authority \(development\)/);
    assert.equal(body.signatures[0].signed_at, body.signatures[0].timestamp.time, 'the time is the timestamp’s');
    assert.deepEqual(
      body.signers.map((signer: { email: string; how: string; mandate_id: string | null }) => [
        signer.email,
        signer.how,
        signer.mandate_id,
      ]),
      completed.signers.map((email) => [email, 'browser', null]),
    );
    assert.match(body.sha256, /^[0-9a-f]{64}$/);
  });

  it('says valid: false when one byte of the file changed, with the reason, and names no signer (it is not what was issued)', async () => {
    const tampered = Buffer.from(completed.pdf);
    // A byte of a content stream's data, inside what the certification seal covers.
    const at = tampered.indexOf('stream\n', 200) + 'stream\n'.length + 5;
    assert.ok(at > 200 && at < tampered.length / 2, `at ${at}`);
    tampered[at] ^= 0xff;
    const report = await verify(tampered);
    assert.equal(report.status, 200, report.text);
    assert.equal(report.body.valid, false);
    assert.equal(report.body.issued_by_this_service, false);
    assert.deepEqual(report.body.signers, []);
    assert.equal(report.body.signatures[0].valid, false);
    assert.match(report.body.problems.join(' '), /changed after it was signed|changed since it was timestamped/);
  });

  it('says the file was modified after its seal when bytes were appended', async () => {
    const appended = Buffer.concat([completed.pdf, Buffer.from('\n% appended\n')]);
    const report = await verify(appended);
    assert.equal(report.body.valid, false);
    assert.equal(report.body.modified_after_seal, true);
    assert.equal(report.body.issued_by_this_service, false);
  });

  it('checks an unrelated signed PDF cryptographically only: issued_by_this_service is false', async () => {
    const sealer = await developmentSealer(await tempDir());
    const other = await sealer.seal((await buildSampleNda()).pdf, { reason: 'Elsewhere' });
    const report = await verify(other);
    assert.equal(report.status, 200, report.text);
    assert.equal(report.body.valid, true, JSON.stringify(report.body.problems));
    assert.equal(report.body.issued_by_this_service, false);
    assert.equal(report.body.document_id, null);
    assert.deepEqual(report.body.signers, []);
    assert.equal(report.body.signatures[0].kind, 'approval');
  });

  it('says an unsigned PDF carries no signature; refuses another type (415), an empty body (400), past the size limit (413) and an unreadable file (422)', async () => {
    const unsigned = await verify((await buildSampleNda()).pdf);
    assert.equal(unsigned.body.valid, false);
    assert.deepEqual(unsigned.body.problems, ['The PDF carries no digital signature.']);
    assertErrorCode(await verify(completed.pdf, 'text/plain'), 415, 'unsupported_media_type');
    assertErrorCode(await verify(Buffer.alloc(0)), 400, 'invalid_request');
    assertErrorCode(await verify(Buffer.alloc(3 * 1024 * 1024, 0x41)), 413, 'payload_too_large');
    assertErrorCode(await verify(Buffer.from('%PDF-1.7\nnot really')), 422, 'invalid_pdf');
  });
});
