import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import * as pkijs from 'pkijs';
import { ensurePdfcpu } from '../../../runtime/pdfcpu';
import { pdfsig, qpdfCheck, writeTemp } from '../../../test/pdf-tools';
import { opensslTsVerify, pdfcpuValidate } from '../../../test/pdf-validators';
import { startTestPki, type TestPki } from '../../../test/pki';
import { signatureTokens, verifyOffline } from '../../../test/verifier';
import { buildSampleNda } from '../samples';
import { createSealer, type Sealer } from '../seal';
import { sha256 } from './cms';
import { addDss } from './dss';
import { openSigningKey } from './pki';
import { httpRevocationProvider } from './revocation';
import { httpTimestampAuthority, timestampNonce } from './timestamps';

// Seals made with a test CA's certificate, a real RFC 3161 authority (openssl ts) and real OCSP and CRL
// services (openssl ocsp, openssl ca -gencrl) on loopback, checked by pdfsig, pdfcpu and openssl.

describe('PAdES seals against a real test PKI: timestamp authority, OCSP responder and CRL', () => {
  let pki: TestPki;
  let pdfcpu: string;
  let sealer: Sealer;
  let nda: Uint8Array;
  const reports: string[] = [];

  before(async () => {
    [pki, pdfcpu] = await Promise.all([startTestPki(), ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY })]);
    const key = await openSigningKey({ p12: await fs.readFile(pki.sealP12Path), passphrase: pki.sealPassphrase });
    sealer = createSealer(key, {
      tsa: httpTimestampAuthority({ url: pki.tsaUrl, timeoutMs: 10_000 }),
      revocation: httpRevocationProvider({ timeoutMs: 10_000, report: (message) => reports.push(message) }),
    });
    nda = (await buildSampleNda()).pdf;
  });
  after(() => pki?.close());

  async function validate(pdf: Uint8Array, revocation: 'ocsp' | 'crl') {
    return pdfcpuValidate(pdfcpu, await writeTemp(`pades-${Date.now()}-${Math.random()}.pdf`, pdf), {
      trustedCaPem: pki.rootCaPem,
      revocation,
    });
  }

  it('an approval seal (B-T): pdfsig finds it valid over the whole file; pdfcpu builds its chain to the test root, finds the certificate good by OCSP and by CRL, the timestamp and ETSI.CAdES.detached; openssl accepts the timestamp token', async () => {
    const sealed = await sealer.seal(nda, { reason: 'Signed by Ann' });
    const { report, valid } = await pdfsig(sealed);
    assert.ok(valid, report);
    for (const revocation of ['ocsp', 'crl'] as const) {
      const pdfcpuReport = await validate(sealed, revocation);
      assert.deepEqual(
        pdfcpuReport.signatures.map((signature) => signature.status),
        ['signature is valid'],
        pdfcpuReport.output,
      );
      assert.match(pdfcpuReport.output, /SubFilter:\s+ETSI\.CAdES\.detached/);
      assert.match(pdfcpuReport.output, /Timestamp:\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/, 'pdfcpu sees the signature timestamp');
      assert.match(pdfcpuReport.output, /Subject:\s+Svc Test Document Seal[\s\S]*?Local Path: Status: ok/, 'the chain resolves');
      assert.match(pdfcpuReport.output, new RegExp(`Reason: ${revocation.toUpperCase()}: certificate status good`));
    }
    // The service's verifier, trusting the test root: the same verdict, with the OCSP answer it fetched nothing for (B-T carries none).
    const ours = verifyOffline(sealed, [await fs.readFile(pki.rootCaPem, 'utf8')]);
    assert.equal(ours.verdict, 'valid', ours.problems.join('\n'));
    assert.equal(ours.signatures[0].pades_level, 'B-T');
    assert.equal(ours.signatures[0].chain?.revocation, 'unknown', 'the seal publishes OCSP and CRL, a B-T file holds neither');
    assert.match(ours.signatures[0].timestamp!.tsa, /CN=Svc Test Timestamp Authority/);
    const [signature] = signatureTokens(sealed);
    const verified = await opensslTsVerify({
      token: signature.token!,
      digest: signature.imprint!,
      caPem: pki.rootCaPem,
      untrustedPem: pki.chainPem,
    });
    assert.ok(verified.ok, verified.output);
  });

  it('a nonce whose random first byte is 0x00 or 0x80 is still minimal DER, and the authority (openssl ts) grants it', async () => {
    const digest = sha256(Buffer.from('the bytes a seal covers'));
    for (const first of [0x00, 0x80]) {
      const random = (size: number) => Buffer.concat([Buffer.from([first]), Buffer.alloc(size - 1, 0x05)]);
      // Before: 0x00 0x05 … was padded DER that openssl ts refused as "Bad request format".
      const tsa = httpTimestampAuthority({ url: pki.tsaUrl, timeoutMs: 10_000, random });
      const token = Buffer.from(await tsa.timestamp(digest, 'SHA-256'));
      const verified = await opensslTsVerify({ token, digest, caPem: pki.rootCaPem, untrustedPem: pki.chainPem });
      assert.equal(verified.ok, true, verified.output);
      const nonce = timestampNonce(random);
      assert.ok(nonce[0] >= 0x01 && nonce[0] <= 0x7f, `first byte ${nonce[0]}`);
    }
  });

  it('the completion seal (B-LTA): certified with no change allowed, a DSS holding the chains and the OCSP answers of the seal and the authority, then a document timestamp over the whole file that pdfcpu and openssl accept', async () => {
    const ocspBefore = pki.ocsp.requests;
    const { pdf: certified, warnings } = await sealer.certify(nda, { reason: 'Completed' });
    assert.deepEqual(warnings, [], 'every certificate below the root had revocation data');
    assert.ok(pki.ocsp.requests >= ocspBefore + 2, 'the OCSP responder was asked for the seal and the authority');

    const { report, valid } = await pdfsig(certified);
    assert.ok(valid, report);
    const pdfcpuReport = await validate(certified, 'ocsp');
    const [timestampRow, certificationRow] = pdfcpuReport.signatures;
    assert.match(timestampRow.type, /^document timestamp/);
    assert.equal(timestampRow.status, 'signature is valid', pdfcpuReport.output);
    assert.equal(timestampRow.reason, 'document has not been modified');
    assert.match(certificationRow.type, /certified/);
    assert.equal(certificationRow.status, 'signature is valid', pdfcpuReport.output);
    assert.match(pdfcpuReport.output, /Certified:\s+true/);
    assert.match(pdfcpuReport.output, /Permissions:\s+no changes allowed/);
    assert.match(pdfcpuReport.output, /SubFilter:\s+ETSI\.RFC3161/);

    // The service's verifier gives pdfcpu's verdict: B-LTA, the seal's chain good by the OCSP answer in the DSS.
    const ours = verifyOffline(certified, [await fs.readFile(pki.rootCaPem, 'utf8')]);
    assert.equal(ours.verdict, 'valid', ours.problems.join('\n'));
    assert.deepEqual(
      ours.signatures.map((signature) => [signature.kind, signature.indication, signature.pades_level, signature.chain?.revocation]),
      [
        ['certification', 'TOTAL-PASSED', 'B-LTA', 'good'],
        ['timestamp', 'TOTAL-PASSED', null, 'good'],
      ],
    );
    const [certification, timestamp] = signatureTokens(certified);
    assert.equal(ours.signatures[0].docmdp, 1);
    assert.equal(timestamp.kind, 'timestamp');
    const [b, c, d] = timestamp.byteRange.slice(1);
    assert.equal(c + d, certified.length, 'the document timestamp covers the whole file');
    const signedBytes = Buffer.concat([Buffer.from(certified.subarray(0, b)), Buffer.from(certified.subarray(c, c + d))]);
    assert.ok(timestamp.imprint!.equals(sha256(signedBytes)));
    for (const { token, imprint } of [certification, timestamp]) {
      const verified = await opensslTsVerify({ token: token!, digest: imprint!, caPem: pki.rootCaPem, untrustedPem: pki.chainPem });
      assert.ok(verified.ok, verified.output);
    }

    // The DSS: the seal, the authority, the issuing CA and the root; an OCSP answer for each leaf.
    const dss = (await PDFDocument.load(certified)).catalog.lookup(PDFName.of('DSS'), PDFDict);
    assert.equal(dss.has(PDFName.of('VRI')), false, 'no per-signature VRI (optional in PAdES, refused by pdfcpu)');
    const decoded = (key: string) => {
      const array = dss.lookupMaybe(PDFName.of(key), PDFArray);
      return (array?.asArray() ?? []).map((_, index) => decodePDFRawStream(array!.lookup(index, PDFRawStream)).decode());
    };
    const subjects = decoded('Certs').map((bytes) => {
      const cn = pkijs.Certificate.fromBER(bytes).subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
      return String(cn?.value.valueBlock.value);
    });
    assert.deepEqual(
      subjects.sort(),
      ['Svc Test Document Seal', 'Svc Test Issuing CA', 'Svc Test Root CA', 'Svc Test Timestamp Authority'].sort(),
    );
    const ocsps = decoded('OCSPs').map((bytes) => pkijs.OCSPResponse.fromBER(bytes));
    assert.ok(ocsps.length >= 2, `${ocsps.length} OCSP answers`);
    for (const response of ocsps) assert.equal(response.responseStatus.valueBlock.valueDec, 0, 'successful');
    const check = await qpdfCheck(certified);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('a seal certificate revoked at its CA: the OCSP answer in the DSS says so, the log is told, and pdfcpu finds it revoked', async () => {
    const pkiRevoked = await startTestPki({ intermediate: false });
    try {
      const key = await openSigningKey({ p12: await fs.readFile(pkiRevoked.sealP12Path), passphrase: pkiRevoked.sealPassphrase });
      const told: string[] = [];
      const revokedSealer = createSealer(key, {
        tsa: httpTimestampAuthority({ url: pkiRevoked.tsaUrl, timeoutMs: 10_000 }),
        revocation: httpRevocationProvider({ timeoutMs: 10_000, report: (message) => told.push(message) }),
      });
      await pkiRevoked.revoke('seal');
      const { pdf } = await revokedSealer.certify(nda, { reason: 'Completed' });
      assert.ok(
        told.some((message) => /Svc Test Document Seal.*REVOKED/.test(message)),
        told.join('\n'),
      );
      const file = await writeTemp(`revoked-${Date.now()}.pdf`, pdf);
      const report = await pdfcpuValidate(pdfcpu, file, { trustedCaPem: pkiRevoked.rootCaPem, revocation: 'ocsp' });
      assert.match(report.output, /revoked/i, report.output);
      // The service's verifier reads the same OCSP answer from the DSS (it fetches nothing): failed, revoked before the trusted time.
      const ours = verifyOffline(pdf, [await fs.readFile(pkiRevoked.rootCaPem, 'utf8')]);
      assert.equal(ours.verdict, 'invalid', JSON.stringify(ours.signatures, null, 1));
      assert.deepEqual([ours.signatures[0].indication, ours.signatures[0].sub_indication], ['TOTAL-FAILED', 'REVOKED']);
      assert.equal(ours.signatures[0].chain?.revocation, 'revoked');
      console.log(
        `pdfcpu: ${report.signatures.map((row) => row.status).join('; ')} | this service: ${ours.verdict}, ${ours.signatures[0].sub_indication}`,
      );
    } finally {
      await pkiRevoked.close();
    }
  });

  it('a seal revoked after its trusted time: the DSS added later says revoked, and the signature stays valid (what a timestamp proves)', async () => {
    const pkiLater = await startTestPki({ intermediate: false });
    try {
      const key = await openSigningKey({ p12: await fs.readFile(pkiLater.sealP12Path), passphrase: pkiLater.sealPassphrase });
      const laterSealer = createSealer(key, { tsa: httpTimestampAuthority({ url: pkiLater.tsaUrl, timeoutMs: 10_000 }) });
      const sealed = await laterSealer.seal(nda, { reason: 'Signed before the revocation' });
      // openssl's index keeps seconds: the revocation is later than the signature timestamp.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await pkiLater.revoke('seal');
      const [signature] = signatureTokens(sealed);
      const { pdf } = await addDss(sealed, [signature.contents], {
        revocation: httpRevocationProvider({ timeoutMs: 10_000, report: () => undefined }),
        timeoutMs: 10_000,
      });
      const ours = verifyOffline(pdf, [await fs.readFile(pkiLater.rootCaPem, 'utf8')]);
      const [checked] = ours.signatures;
      assert.equal(ours.verdict, 'valid', JSON.stringify(checked, null, 1));
      assert.equal(checked.chain?.revocation, 'revoked');
      assert.ok(Date.parse(checked.chain!.revoked_at!) > Date.parse(checked.trusted_time!), 'revoked after the time its timestamp proves');
      assert.deepEqual(
        checked.changes_after.map((change) => [change.level, change.allowed]),
        [['lta', true]],
      );
    } finally {
      await pkiLater.close();
    }
  });

  it('the DSS has no revocation data it could not get, and says what is missing: an unreachable OCSP responder and CRL server', async () => {
    await Promise.all([pki.ocsp.stop(), pki.repository.stop()]);
    try {
      // A sealer of its own: answers fetched earlier are cached until their next update.
      const key = await openSigningKey({ p12: await fs.readFile(pki.sealP12Path), passphrase: pki.sealPassphrase });
      const fresh = createSealer(key, {
        tsa: httpTimestampAuthority({ url: pki.tsaUrl, timeoutMs: 10_000 }),
        revocation: httpRevocationProvider({ timeoutMs: 2_000, report: () => undefined }),
        revocationTimeoutMs: 2_000,
      });
      const { pdf, warnings } = await fresh.certify(nda, { reason: 'Completed' });
      assert.ok(
        warnings.some((warning) => /no revocation data for "Svc Test Document Seal"/.test(warning)),
        warnings.join('\n'),
      );
      const dss = (await PDFDocument.load(pdf)).catalog.lookup(PDFName.of('DSS'), PDFDict);
      assert.equal(dss.has(PDFName.of('OCSPs')), false);
      assert.equal(dss.has(PDFName.of('CRLs')), false);
      const { report, valid } = await pdfsig(pdf);
      assert.ok(valid, report);
    } finally {
      await Promise.all([pki.ocsp.start(), pki.repository.start()]);
    }
  });
});
