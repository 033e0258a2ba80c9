import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import forge from 'node-forge';
import { PDFArray, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { signaturePng } from '../../test/images';
import { pdfsig, qpdfCheck, tempDir } from '../../test/pdf-tools';
import { freePort } from '../../test/ports';
import { verifyOffline } from '../../test/verifier';
import { PdfError } from './errors';
import { OID, readSignedData } from './pades/cms';
import { openP12, openSigningKey } from './pades/pki';
import { httpTimestampAuthority, TimestampUnavailable } from './pades/timestamps';
import { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from './samples';
import { createSealer, loadSealCertificate, type Sealer } from './seal';
import { loadDevelopmentPki } from './seal-certificate';
import { developmentSealer } from './sealer';
import { stampWidgets } from './stamp';

/** The signed attributes' types of the first signature's CMS. */
function signedAttributeTypes(pdf: Uint8Array): string[] {
  const text = Buffer.from(pdf).toString('latin1');
  const range = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)/.exec(text)!;
  const hex = text.slice(Number(range[2]) + 1, Number(range[3]) - 1).replace(/(00)+$/, '');
  const signed = readSignedData(Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex'));
  return signed.signerInfos[0].signedAttrs!.attributes.map((attribute) => attribute.type);
}

const signature = signaturePng();

async function assertSealed(pdf: Uint8Array): Promise<string> {
  const { report, valid } = await pdfsig(pdf);
  assert.ok(valid, report);
  assert.equal((report.match(/Signature #/g) ?? []).length, 1, 'exactly one signature');
  const check = await qpdfCheck(pdf);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  return report;
}

describe('createSealer', () => {
  let sealer: Sealer;
  let nda: SampleTemplate;
  let ca: string;
  before(async () => {
    const dataDir = await tempDir();
    sealer = await developmentSealer(dataDir);
    ca = (await loadDevelopmentPki(dataDir)).caPem;
    nda = await buildSampleNda();
  });

  it('seals a PDF with one valid PAdES B-T signature over the whole file: ETSI.CAdES.detached, signing-certificate-v2, a timestamp, no signing-time attribute', async () => {
    const sealed = await sealer.seal(nda.pdf, { reason: 'Document created', location: 'test', signedAt: new Date('2026-01-02T03:04:05Z') });
    const report = await assertSealed(sealed);
    assert.match(report, /Signature Type: ETSI\.CAdES\.detached/);
    assert.match(report, /CN=Document seal \(development\)/);
    assert.match(sealer.subject, /^CN=Document seal \(development\), O=/);
    const verified = verifyOffline(sealed, [ca]);
    assert.equal(verified.verdict, 'valid', verified.problems.join('\n'));
    const [signature] = verified.signatures;
    assert.equal(signature.kind, 'approval');
    assert.equal(signature.indication, 'TOTAL-PASSED', signature.problem ?? '');
    assert.equal(signature.coverage, 'whole_file');
    assert.equal(signature.pades_level, 'B-T');
    assert.equal(signature.timestamp?.indication, 'TOTAL-PASSED', 'a signature timestamp over the signature value');
    assert.match(signature.timestamp!.tsa, /CN=Timestamp authority \(development\)/);
    assert.equal(signature.time_source, 'signature_timestamp');
    assert.ok(Math.abs(Date.parse(signature.trusted_time!) - Date.now()) < 60_000, 'the timestamp is the authority’s time, not /M');
    const attributes = signedAttributeTypes(sealed);
    assert.ok(attributes.includes(OID.signingCertificateV2), 'ESS signing-certificate-v2');
    assert.ok(attributes.includes(OID.messageDigest));
    assert.ok(!attributes.includes(OID.signingTime), 'no signing-time attribute: the time comes from the timestamp');
  });

  it('certifies the completion: DocMDP P=1, then a DSS with the chain and a document timestamp that covers the whole file (B-LTA)', async () => {
    const { pdf: certified } = await sealer.certify(nda.pdf, { reason: 'Completed' });
    const { report, valid, signatures } = await pdfsig(certified);
    assert.ok(valid, report);
    assert.deepEqual(
      signatures.map((signature) => signature.type),
      ['ETSI.CAdES.detached', 'unknown'],
      'the certification seal, then the document timestamp (pdfsig 22 cannot name ETSI.RFC3161)',
    );
    const verified = verifyOffline(certified, [ca]);
    assert.equal(verified.verdict, 'valid', verified.problems.join('\n'));
    const [certification, timestamp] = verified.signatures;
    assert.equal(certification.kind, 'certification');
    assert.equal(certification.docmdp, 1);
    assert.equal(certification.indication, 'TOTAL-PASSED', certification.problem ?? '');
    assert.equal(certification.coverage, 'revision', 'the DSS and the document timestamp follow it');
    assert.deepEqual(
      certification.changes_after.map((change) => [change.level, change.allowed]),
      [
        ['lta', true],
        ['lta', true],
      ],
      'a DSS and a document timestamp: what a certification with no change permitted still allows',
    );
    assert.equal(certification.pades_level, 'B-LTA');
    assert.equal(certification.timestamp?.indication, 'TOTAL-PASSED');
    assert.equal(timestamp.kind, 'timestamp');
    assert.equal(timestamp.subfilter, 'ETSI.RFC3161');
    assert.equal(timestamp.indication, 'TOTAL-PASSED', timestamp.problem ?? '');
    assert.equal(timestamp.coverage, 'whole_file');
    const doc = await PDFDocument.load(certified);
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    // The seal's certificate, its CA and the timestamp authority's certificate.
    assert.ok(dss.lookup(PDFName.of('Certs'), PDFArray).size() >= 3, 'the DSS holds the chains');
    assert.ok(doc.catalog.lookup(PDFName.of('Perms'), PDFDict).has(PDFName.of('DocMDP')), 'the catalog names the certification');
    const check = await qpdfCheck(certified);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('never seals without the trusted time: a timestamp authority that fails fails the seal', async () => {
    const key = await openSigningKey((await loadDevelopmentPki(await tempDir())).seal);
    const down = httpTimestampAuthority({ url: `http://127.0.0.1:${await freePort()}/tsa`, timeoutMs: 2000 });
    const failing = createSealer(key, { tsa: down });
    await assert.rejects(failing.seal(nda.pdf, { reason: 'x' }), (error: unknown) => error instanceof TimestampUnavailable);
    await assert.rejects(failing.certify(nda.pdf, { reason: 'x' }), (error: unknown) => error instanceof TimestampUnavailable);
  });

  it('seals each revision from the unsealed working copy: both revisions verify', async () => {
    const disclosing = nda.widgets.filter((widget) => widget.role === 'Disclosing Party');
    const receiving = nda.widgets.filter((widget) => widget.role === 'Receiving Party');
    const signer = { name: 'Ann Lee', email: 'ann@example.com' };
    const first = await stampWidgets(nda.pdf, { widgets: disclosing, signer, signedAt: new Date(), signatureImage: signature, values: {} });
    await assertSealed(await sealer.seal(first, { reason: 'Signed by Ann Lee' }));
    const second = await stampWidgets(first, {
      widgets: receiving,
      signer: { name: 'Bo Chen', email: 'bo@example.com' },
      signedAt: new Date(),
      signatureImage: signature,
      values: { 'receiving-title': 'CFO' },
    });
    await assertSealed(await sealer.seal(second, { reason: 'Signed by Bo Chen' }));
  });

  it('refuses a PDF that already carries a signature (already_sealed), stamped over or not', async () => {
    const sealed = await sealer.seal(nda.pdf, { reason: 'Document created' });
    const isAlreadySealed = (error: unknown) => error instanceof PdfError && error.reason === 'already_sealed';
    await assert.rejects(sealer.seal(sealed, { reason: 'again' }), isAlreadySealed);
    const widgets = nda.widgets.filter((widget) => widget.role === 'Disclosing Party');
    const stampedOverSeal = await stampWidgets(sealed, {
      widgets,
      signer: { name: 'Ann Lee', email: 'a@x.test' },
      signedAt: new Date(),
      signatureImage: signature,
      values: {},
    });
    await assert.rejects(sealer.seal(stampedOverSeal, { reason: 'again' }), isAlreadySealed);
  });

  it('seals the 50-page agreement after stamping it', async () => {
    const agreement = await buildSampleServicesAgreement();
    const widgets = agreement.widgets.filter((widget) => widget.role === 'Provider');
    const stamped = await stampWidgets(agreement.pdf, {
      widgets,
      signer: { name: 'Ann Lee', email: 'ann@example.com' },
      signedAt: new Date(),
      signatureImage: signature,
      values: {},
    });
    await assertSealed(await sealer.seal(stamped, { reason: 'Signed by Ann Lee' }));
  });

  it('writes a reason with parentheses, a backslash and non-Latin letters intact', async () => {
    const reason = 'Signed by Zoë Šimůnek (CEO) :) \\ done';
    const sealed = await sealer.seal(nda.pdf, { reason, location: 'Praha (CZ)' });
    await assertSealed(sealed);
    const doc = await PDFDocument.load(sealed);
    const signatureDict = doc.context
      .enumerateIndirectObjects()
      .map(([, object]) => object)
      .find((object) => object instanceof PDFDict && object.has(PDFName.of('ByteRange'))) as PDFDict;
    const text = (key: string) => (signatureDict.lookup(PDFName.of(key)) as unknown as { decodeText(): string }).decodeText();
    assert.equal(text('Reason'), reason);
    assert.equal(text('Location'), 'Praha (CZ)');
  });

  it('names its signature field apart from a form field already called Signature1', async () => {
    const doc = await PDFDocument.load(nda.pdf);
    doc.getForm().createTextField('Signature1').addToPage(doc.getPage(0), { x: 10, y: 10, width: 50, height: 12 });
    const sealed = await sealer.seal(await doc.save(), { reason: 'Document created' });
    const report = await assertSealed(sealed);
    assert.match(report, /Signature Field Name: Seal\b/);
  });
});

describe('loadSealCertificate', () => {
  it('creates the development PKI once (a CA, the seal and the timestamp authority it issued; files 0600, directory 0700) and loads it later', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const first = await loadSealCertificate({ dataDir });
    const second = await loadSealCertificate({ dataDir });
    assert.deepEqual(second.p12, first.p12);
    assert.equal(second.passphrase, first.passphrase);
    assert.ok(first.passphrase.length >= 32);
    const mode = async (file: string) => (await fs.stat(path.join(dataDir, 'pki', file))).mode & 0o777;
    assert.equal(await mode('seal.p12'), 0o600);
    assert.equal(await mode('tsa.p12'), 0o600);
    assert.equal(await mode('passphrase'), 0o600);
    assert.equal(await mode('.'), 0o700);
    assert.deepEqual((await fs.readdir(dataDir)).sort(), ['pki'], 'no temporary directory is left behind');
    // The seal certificate is issued by the development CA (a chain validators can build), not self-signed.
    const ca = forge.pki.certificateFromPem(await fs.readFile(path.join(dataDir, 'pki', 'ca.pem'), 'utf8'));
    const key = openP12(first);
    assert.equal(key.certificate.issuer.getField('CN').value, ca.subject.getField('CN').value);
    assert.ok(ca.verify(key.certificate), 'signed by the CA');
    assert.deepEqual(
      key.chain.map((cert) => cert.subject.getField('CN').value),
      [ca.subject.getField('CN').value],
    );
    assert.equal((ca.getExtension('basicConstraints') as { cA?: boolean }).cA, true);
  });

  it('agrees on one certificate when several callers race', async () => {
    const dataDir = await tempDir();
    const all = await Promise.all(Array.from({ length: 4 }, () => loadSealCertificate({ dataDir })));
    const stored = await fs.readFile(path.join(dataDir, 'pki', 'seal.p12'));
    for (const certificate of all) assert.deepEqual(certificate.p12, stored);
    assert.deepEqual((await fs.readdir(dataDir)).sort(), ['pki']);
  });

  it('uses a configured PKCS#12 (SVC_SIGNING_P12) instead, chain included, and creates nothing', async () => {
    const directory = await tempDir();
    const p12Path = path.join(directory, 'company.p12');
    await fs.writeFile(p12Path, issuedP12('Example Corp document seal', 's3cret'));
    const dataDir = path.join(directory, 'data');
    const certificate = await loadSealCertificate({ dataDir, p12Path, passphrase: 's3cret' });
    const sealer = createSealer(await openSigningKey(certificate));
    assert.match(sealer.subject, /CN=Example Corp document seal/);
    const report = await assertSealed(await sealer.seal((await buildSampleNda()).pdf, { reason: 'Document created' }));
    assert.match(report, /CN=Example Corp document seal/);
    await assert.rejects(fs.stat(dataDir), { code: 'ENOENT' });
  });

  it('refuses a configured PKCS#12 with the wrong passphrase', async () => {
    const p12Path = path.join(await tempDir(), 'company.p12');
    await fs.writeFile(p12Path, issuedP12('Example Corp document seal', 's3cret'));
    await assert.rejects(
      loadSealCertificate({ dataDir: await tempDir(), p12Path, passphrase: 'wrong' }),
      (error: unknown) => error instanceof PdfError && error.reason === 'seal_certificate',
    );
  });
});

/** A PKCS#12 holding a leaf certificate issued by a test CA, and the CA certificate. */
function issuedP12(commonName: string, passphrase: string): Buffer {
  const keyPair = () =>
    forge.pki.privateKeyFromPem(
      crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ) as forge.pki.rsa.PrivateKey;
  const certificate = (
    subject: string,
    key: forge.pki.rsa.PrivateKey,
    issuer: forge.pki.Certificate | undefined,
    signingKey: forge.pki.rsa.PrivateKey,
    serial: string,
  ) => {
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.rsa.setPublicKey(key.n, key.e);
    cert.serialNumber = serial;
    cert.validity.notBefore = new Date(Date.now() - 86_400_000);
    cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
    cert.setSubject([
      { name: 'commonName', value: subject },
      { name: 'organizationName', value: 'Example Corp' },
    ]);
    cert.setIssuer(issuer ? issuer.subject.attributes : cert.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: !issuer },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, keyCertSign: !issuer },
    ]);
    cert.sign(signingKey, forge.md.sha256.create());
    return cert;
  };
  const caKey = keyPair();
  const ca = certificate('Example Corp test CA', caKey, undefined, caKey, '01');
  const leafKey = keyPair();
  const leaf = certificate(commonName, leafKey, ca, caKey, '02');
  const asn1 = forge.pkcs12.toPkcs12Asn1(leafKey, [leaf, ca], passphrase, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}
