// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { PDFArray, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { Apply, Document, DocumentRevision, type Template } from '../../db/models';
import { randomBase62 } from '../../lib/ids';
import { ensurePdfcpu } from '../../runtime/pdfcpu';
import { applyRuns } from '../../test/applies';
import { createDocument, downloadPdf, SignerSession, seedSamples, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { pdfAttachments, pdfsig, writeTemp } from '../../test/pdf-tools';
import { opensslTsVerify, pdfcpuValidate } from '../../test/pdf-validators';
import { startTestPki, type TestPki } from '../../test/pki';
import { type Stack, startStack } from '../../test/stack';
import { signatureTokens, verifyOffline } from '../../test/verifier';
import { waitFor } from '../../test/wait';

// The service's own sealing path end to end: a document completed by two browser signers on a stack
// whose seal certificate a test CA issued and whose timestamps come from a real RFC 3161 authority,
// with that CA's OCSP responder and CRLs on loopback; then the authority taken down in production.

const signature = { method: 'drawn', image: dataUrl(signaturePng()) };

async function sendNda(stack: Stack, owner: Account, nda: Template) {
  const tag = randomBase62(6).toLowerCase();
  const signers = [
    { name: 'Dana Discloser', email: `dana-${tag}@example.test` },
    { name: 'Rey Receiver', email: `rey-${tag}@example.test` },
  ];
  const created = await createDocument(stack, owner, { template_id: nda.id, name: `NDA ${tag}`, signers, send: true });
  assert.equal(created.status, 201, created.text);
  const sessions = created.body.signers.map(
    (signer: { sign_url: string; email: string }) => new SignerSession(stack, signer.sign_url, signer.email),
  );
  return { id: created.body.document_id as string, sessions: sessions as SignerSession[] };
}

async function sign(session: SignerSession, position: 0 | 1) {
  await session.verify();
  return session.request('POST', '/sign', { consent: true, signature, values: position === 1 ? { 'receiving-title': 'Counsel' } : {} });
}

describe('a completed document sealed with a test CA’s certificate and a real timestamp authority', () => {
  let pki: TestPki;
  let pdfcpu: string;
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    [pki, pdfcpu] = await Promise.all([startTestPki(), ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY })]);
    stack = await startStack({
      env: { SVC_SIGNING_P12: pki.sealP12Path, SVC_SIGNING_P12_PASSPHRASE: pki.sealPassphrase, SVC_TSA_URL: pki.tsaUrl },
    });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack?.close();
    await pki?.close();
  });

  it('is PAdES B-LTA as pdfsig, pdfcpu and openssl see it, and carries its audit trail and receipt', async () => {
    const { id, sessions } = await sendNda(stack, owner, nda);
    for (const [position, session] of sessions.entries()) {
      const signed = await sign(session, position as 0 | 1);
      assert.equal(signed.status, 200, signed.text);
    }
    const document = await waitForDocument(stack, owner.key, id, (d) => d.status === 'completed', 'completed');
    const pdf = await downloadPdf(stack, owner.key, id);

    const { report, valid } = await pdfsig(pdf);
    assert.ok(valid, report);
    const checked = await pdfcpuValidate(pdfcpu, await writeTemp(`completed-${id}.pdf`, pdf), {
      trustedCaPem: pki.rootCaPem,
      revocation: 'ocsp',
    });
    assert.deepEqual(
      checked.signatures.map((row) => [row.type.split(' (')[0], row.status]),
      [
        ['document timestamp', 'signature is valid'],
        ['form signature', 'signature is valid'],
      ],
      checked.output,
    );
    assert.match(checked.output, /SubFilter:\s+ETSI\.CAdES\.detached/);
    assert.match(checked.output, /Certified:\s+true/);
    assert.match(checked.output, /Permissions:\s+no changes allowed/);
    assert.match(checked.output, /Timestamp:\s+\d{4}-/);
    assert.match(checked.output, /Reason: OCSP: certificate status good/);

    const root = await fs.readFile(pki.rootCaPem, 'utf8');
    const ours = verifyOffline(pdf, [root]);
    assert.equal(ours.verdict, 'valid', ours.problems.join('\n'));
    assert.deepEqual(
      ours.signatures.map((signature) => [signature.kind, signature.pades_level]),
      [
        ['certification', 'B-LTA'],
        ['timestamp', null],
      ],
    );
    for (const signature of ours.signatures) assert.match(signature.timestamp!.tsa, /CN=Svc Test Timestamp Authority/);
    for (const token of signatureTokens(pdf)) {
      const verified = await opensslTsVerify({
        token: token.token!,
        digest: token.imprint!,
        caPem: pki.rootCaPem,
        untrustedPem: pki.chainPem,
      });
      assert.ok(verified.ok, verified.output);
    }
    const dss = (await PDFDocument.load(pdf)).catalog.lookup(PDFName.of('DSS'), PDFDict);
    assert.ok((dss.lookupMaybe(PDFName.of('OCSPs'), PDFArray)?.size() ?? 0) >= 2, 'OCSP answers for the seal and the authority');

    // The file alone is the evidence: the very receipt of document.completed, and the audit trail.
    const attached = await pdfAttachments(pdf);
    assert.equal(attached['receipt.jws'].toString(), document.receipt_jws);
    const trail = JSON.parse(attached['audit-trail.json'].toString());
    assert.equal(trail.document_id, id);
    const signedLines = trail.entries.filter((entry: { action: string }) => entry.action === 'document.signed');
    assert.deepEqual(
      signedLines.map((entry: { data: { email: string; method: string }; actor: { ip: string } }) => [
        entry.data.email,
        entry.data.method,
        entry.actor.ip,
      ]),
      sessions.map((session) => [session.email, 'browser:drawn', '127.0.0.1']),
    );
    assert.equal(trail.entries.at(-1).action, 'document.completed');
    for (const action of ['document.created', 'document.sent', 'sign.email_verified'])
      assert.ok(
        trail.entries.some((entry: { action: string }) => entry.action === action),
        `${action} in the trail`,
      );
    // Each signer's own revision is sealed and timestamped too (B-T).
    for (const revision of await DocumentRevision.query(stack.deps.db).where({ document_id: id }).orderBy('revision')) {
      const [seal] = verifyOffline(await stack.deps.blobs.get(revision.sealed_sha256), [root]).signatures;
      assert.equal(seal.indication, 'TOTAL-PASSED', `revision ${revision.revision}: ${seal.problem}`);
      assert.equal(seal.timestamp?.indication, 'TOTAL-PASSED', `revision ${revision.revision} is timestamped`);
    }
  });
});

describe('in production, a timestamp authority that does not answer', () => {
  let pki: TestPki;
  let stack: Stack;
  let owner: Account;
  let nda: Template;
  let root: string;

  before(async () => {
    pki = await startTestPki({ intermediate: false });
    root = await fs.readFile(pki.rootCaPem, 'utf8');
    // Three quick attempts: the apply gives up within seconds.
    stack = await startStack({
      env: {
        SVC_ENV: 'production',
        SVC_SECRET_KEY: randomBase62(40),
        SVC_SIGNING_P12: pki.sealP12Path,
        SVC_SIGNING_P12_PASSPHRASE: pki.sealPassphrase,
        SVC_TSA_URL: pki.tsaUrl,
        SVC_TSA_TIMEOUT_MS: '2000',
        SVC_APPLY_ATTEMPTS: '3',
        SVC_RETRY_INITIAL_MS: '200',
        SVC_RETRY_MAX_MS: '400',
        SVC_APPLY_WAIT_MS: '30000',
      },
    });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack?.close();
    await pki?.close();
  });

  it('is retried, then the apply ends sign_failed naming the authority; nothing without a trusted time is sealed or handed out, and creating a document answers 503', async () => {
    const { id, sessions } = await sendNda(stack, owner, nda);
    await pki.tsa.stop();
    try {
      const answered = await sign(sessions[0], 0);
      assert.equal(answered.status, 502, answered.text);
      assert.equal(answered.body.error.code, 'sign_failed');
      assert.match(answered.body.error.message, /timestamp authority .* could not be reached/);
      const apply = (await Apply.query(stack.deps.db).where({ document_id: id }).first())!;
      assert.equal(apply.status, 'rejected');
      // The workflow ran the apply's three attempts before it gave up.
      // The apply is a local activity: one marker records its run, with the failure and the attempt that ended it.
      const failed = (await applyRuns(stack, id)).filter((run) => run.failure);
      assert.equal(failed.length, 1, 'one failed run (its retries live inside it)');
      assert.equal(failed[0].attempt, 3, 'its third attempt was the last');
      assert.match(failed[0].failure?.message ?? '', /timestamp authority .* could not be reached/);

      assertErrorCode(
        await createDocument(stack, owner, {
          template_id: nda.id,
          name: 'While the authority is down',
          signers: [
            { name: 'A', email: 'a@example.test' },
            { name: 'B', email: 'b@example.test' },
          ],
        }),
        503,
        'service_unavailable',
      );
      // What is handed out is still revision 0, timestamped when the authority answered.
      const current = verifyOffline(await downloadPdf(stack, owner.key, id), [root]).signatures;
      assert.equal(current[0].timestamp?.indication, 'TOTAL-PASSED');
    } finally {
      await pki.tsa.start();
    }
    // Every PDF the service stored is timestamped: none was sealed with only the server's clock.
    for (const revision of await DocumentRevision.query(stack.deps.db)) {
      const [seal] = verifyOffline(await stack.deps.blobs.get(revision.sealed_sha256), [root]).signatures;
      assert.equal(seal.timestamp?.indication, 'TOTAL-PASSED', `${revision.document_id} revision ${revision.revision}`);
    }
    // The authority is back: the signer signs again, and it is applied.
    const again = await sessions[0].request('POST', '/sign', { consent: true, signature, values: {} });
    assert.equal(again.status, 200, again.text);
    await waitFor('the signature', async () => (await Document.query(stack.deps.db).findById(id))!.current_revision === 1);
    const check = await call(stack.url, 'GET', `/v1/documents/${id}`, { key: owner.key });
    assert.equal(check.body.signers[0].status, 'signed');
  });
});
