// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocumentRevision } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { loadDevelopmentPki } from '../../lib/pdf/seal-certificate';
import { developmentSealer } from '../../lib/pdf/sealer';
import { assertErrorCode, call } from '../../test/http';
import { tempDir } from '../../test/pdf-tools';
import { type Stack, startStack } from '../../test/stack';
import { type CompletedPdf, completedPdf, tampered } from '../../test/verify';

type Signature = { kind: string; indication: string; sub_indication: string | null; pades_level: string | null; valid: boolean };

describe('POST /v1/verify: anyone can check a PDF, judged like a relying party', () => {
  let stack: Stack;
  let completed: CompletedPdf;

  before(async () => {
    stack = await startStack({ env: { SVC_VERIFY_LIMIT_BYTES: String(2 * 1024 * 1024) } });
    completed = await completedPdf(stack);
  });
  after(() => stack?.close());

  const verify = (pdf: Uint8Array, options: { type?: string; url?: string } = {}) =>
    call(options.url ?? stack.url, 'POST', '/v1/verify', {
      raw: Buffer.from(pdf),
      headers: { 'content-type': options.type ?? 'application/pdf' },
    });

  it('calls a completed PDF it issued valid (B-LTA on its own CA), names the document and who signed it and how; no key needed', async () => {
    const report = await verify(completed.pdf);
    assert.equal(report.status, 200, report.text);
    const body = report.body;
    assert.equal(body.verdict, 'valid', JSON.stringify(body.problems));
    assert.equal(body.valid, true);
    assert.deepEqual(body.problems, []);
    assert.equal(body.issued_by_this_service, true);
    assert.equal(body.document_id, completed.documentId);
    assert.equal(body.completed, true);
    assert.equal(body.modified_after_seal, false);
    assert.deepEqual(
      body.signatures.map((signature: Signature) => [signature.kind, signature.indication, signature.pades_level, signature.valid]),
      [
        ['certification', 'TOTAL-PASSED', 'B-LTA', true],
        ['timestamp', 'TOTAL-PASSED', null, true],
      ],
    );
    const [certification] = body.signatures;
    assert.equal(certification.chain.status, 'trusted');
    assert.match(certification.chain.anchor, /development CA/);
    assert.equal(certification.time_source, 'signature_timestamp');
    assert.equal(certification.signed_at, certification.trusted_time, 'the time is the timestamp’s');
    assert.deepEqual(
      certification.changes_after.map((change: { level: string; allowed: boolean }) => [change.level, change.allowed]),
      [
        ['lta', true],
        ['lta', true],
      ],
      'the DSS and the document timestamp: all a certification with no change permitted allows',
    );
    assert.deepEqual(
      body.signers.map((signer: { email: string; how: string }) => [signer.email, signer.how]),
      completed.signers.map((signer) => [signer.email, signer.how]),
    );
  });

  it('calls every revision it stored valid: each apply’s approval seal (B-T) and the completion', async () => {
    const revisions = await DocumentRevision.query(stack.deps.db).where({ document_id: completed.documentId }).orderBy('revision');
    assert.ok(revisions.length >= 3, `${revisions.length} revisions`);
    for (const revision of revisions) {
      const report = await verify(await stack.deps.blobs.get(revision.sealed_sha256));
      assert.equal(report.body.verdict, 'valid', `revision ${revision.revision}: ${JSON.stringify(report.body.problems)}`);
      assert.equal(report.body.revision, revision.revision);
      if (revision.kind !== 'completion') assert.equal(report.body.signatures[0].pades_level, 'B-T');
    }
  });

  it('calls a PDF with one changed byte invalid (HASH_FAILURE), with the reason, and names no signer', async () => {
    const report = await verify(tampered(completed.pdf));
    assert.equal(report.status, 200, report.text);
    assert.equal(report.body.verdict, 'invalid');
    assert.equal(report.body.issued_by_this_service, false);
    assert.deepEqual(report.body.signers, []);
    assert.deepEqual([report.body.signatures[0].indication, report.body.signatures[0].sub_indication], ['TOTAL-FAILED', 'HASH_FAILURE']);
    assert.match(report.body.problems.join(' '), /changed after it was signed/);
  });

  it('calls a PDF with bytes after its last revision invalid: nothing describes them, so no signature covers what a reader may show', async () => {
    const appended = Buffer.concat([completed.pdf, Buffer.from('\n% appended\n')]);
    const report = await verify(appended);
    assert.equal(report.body.verdict, 'invalid');
    assert.equal(report.body.modified_after_seal, true);
    assert.match(report.body.problems.join(' '), /bytes follow the last revision/);
  });

  it('calls another deployment’s seal indeterminate (no chain to a trust anchor), and valid once SVC_VERIFY_TRUST_ANCHORS names its CA', async () => {
    const elsewhere = await tempDir();
    const sealer = await developmentSealer(elsewhere);
    const other = await sealer.seal((await buildSampleNda()).pdf, { reason: 'Elsewhere' });
    const report = await verify(other);
    assert.equal(report.status, 200, report.text);
    assert.equal(report.body.verdict, 'indeterminate', JSON.stringify(report.body.signatures));
    assert.equal(report.body.valid, false);
    assert.deepEqual(
      [report.body.signatures[0].indication, report.body.signatures[0].sub_indication, report.body.signatures[0].chain.status],
      ['INDETERMINATE', 'NO_CERTIFICATE_CHAIN_FOUND', 'untrusted'],
    );
    assert.equal(report.body.issued_by_this_service, false);

    const bundle = path.join(elsewhere, 'anchors.pem');
    await fs.writeFile(bundle, (await loadDevelopmentPki(elsewhere)).caPem);
    const trusting = await stack.withEnv({ SVC_VERIFY_TRUST_ANCHORS: bundle });
    try {
      const trusted = await verify(other, { url: trusting.url });
      assert.equal(trusted.body.verdict, 'valid', JSON.stringify(trusted.body.problems));
      assert.equal(
        (await verify(completed.pdf, { url: trusting.url })).body.verdict,
        'valid',
        'its own seals stay trusted beside the bundle',
      );
    } finally {
      await trusting.close();
    }
  });

  it('says an unsigned PDF carries no signature (invalid); refuses another type (415), an empty body (400), past the size limit (413) and an unreadable file (422)', async () => {
    const unsigned = await verify((await buildSampleNda()).pdf);
    assert.equal(unsigned.body.verdict, 'invalid');
    assert.deepEqual(unsigned.body.problems, ['The PDF carries no digital signature.']);
    assertErrorCode(await verify(completed.pdf, { type: 'text/plain' }), 415, 'unsupported_media_type');
    assertErrorCode(await verify(Buffer.alloc(0)), 400, 'invalid_request');
    assertErrorCode(await verify(Buffer.alloc(3 * 1024 * 1024, 0x41)), 413, 'payload_too_large');
    assertErrorCode(await verify(Buffer.from('%PDF-1.7\nnot really')), 422, 'invalid_pdf');
  });

  it('refuses more than 50 signature dictionaries (422 naming the limit) before checking any', async () => {
    const range = /\/ByteRange\s*\[[^\]]*\]/.exec(completed.pdf.toString('latin1'))![0];
    const many = Array.from({ length: 51 }, (_, index) => `${9000 + index} 0 obj\n<< /Type /Sig ${range} /Contents <00> >>\nendobj\n`).join(
      '',
    );
    const refused = await verify(Buffer.concat([completed.pdf, Buffer.from(many)]));
    assertErrorCode(refused, 422, 'invalid_pdf');
    assert.match(refused.body.error.message, /at most 50/);
  });
});

describe('the verify lane: a place is taken before the body is read, refused at once past the address’s share or when full', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({
      worker: false,
      env: { SVC_TRUST_PROXY: 'true', SVC_VERIFY_THREADS: '1', SVC_VERIFY_QUEUE: '1', SVC_VERIFY_PER_ADDRESS: '1' },
    });
  });
  after(() => stack?.close());

  /** A verify from `address` whose body arrives only in part: it holds its place until it is aborted. */
  function slowUpload(address: string): Promise<http.ClientRequest> {
    return new Promise((resolve, reject) => {
      const request = http.request(`${stack.url}/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf', 'content-length': '1000000', 'x-forwarded-for': address },
      });
      request.on('error', () => undefined);
      request.write(Buffer.from('%PDF-1.7\n'), (error) => (error ? reject(error) : resolve(request)));
    });
  }

  const waitAdmitted = async (count: number) => {
    for (let i = 0; i < 500 && stack.deps.verifier.admitted !== count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(stack.deps.verifier.admitted, count);
  };

  const post = (address: string) =>
    call(stack.url, 'POST', '/v1/verify', {
      raw: Buffer.from('%PDF-1.7\n'),
      headers: { 'content-type': 'application/pdf', 'x-forwarded-for': address },
    });

  it('answers 429 with Retry-After to a second verify from one address, 503 with Retry-After when every place is taken, and takes verifies again once they end', async () => {
    const first = await slowUpload('203.0.113.1');
    await waitAdmitted(1);
    const again = await post('203.0.113.1');
    assertErrorCode(again, 429, 'rate_limited');
    assert.ok(Number(again.headers.get('retry-after')) >= 1, 'Retry-After');

    const second = await slowUpload('203.0.113.2');
    await waitAdmitted(2);
    const full = await post('203.0.113.3');
    assertErrorCode(full, 503, 'service_unavailable');
    assert.ok(Number(full.headers.get('retry-after')) >= 1, 'Retry-After');

    first.destroy();
    second.destroy();
    await waitAdmitted(0);
    assertErrorCode(await post('203.0.113.3'), 422, 'invalid_pdf');
  });
});
