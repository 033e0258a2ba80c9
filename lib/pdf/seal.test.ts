import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import forge from 'node-forge';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { signaturePng } from '../../test/images';
import { pdfsig, qpdfCheck, tempDir } from '../../test/pdf-tools';
import { PdfError } from './errors';
import { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from './samples';
import { createSealer, loadSealCertificate, type Sealer } from './seal';
import { stampWidgets } from './stamp';

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
  before(async () => {
    sealer = createSealer(await loadSealCertificate({ dataDir: await tempDir() }));
    nda = await buildSampleNda();
  });

  it('seals a PDF so that pdfsig finds one valid SHA-256 signature over the whole file', async () => {
    const sealed = await sealer.seal(nda.pdf, { reason: 'Document created', location: 'test', signedAt: new Date('2026-01-02T03:04:05Z') });
    const report = await assertSealed(sealed);
    assert.match(report, /adbe\.pkcs7\.detached/);
    assert.match(report, /CN=Document seal \(self-signed\)/);
    assert.match(sealer.subject, /^CN=Document seal \(self-signed\), O=/);
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
  it('creates a self-signed certificate once (files 0600, directory 0700) and loads it later', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const first = await loadSealCertificate({ dataDir });
    const second = await loadSealCertificate({ dataDir });
    assert.deepEqual(second.p12, first.p12);
    assert.equal(second.passphrase, first.passphrase);
    assert.ok(first.passphrase.length >= 32);
    const mode = async (file: string) => (await fs.stat(path.join(dataDir, 'seal', file))).mode & 0o777;
    assert.equal(await mode('seal.p12'), 0o600);
    assert.equal(await mode('passphrase'), 0o600);
    assert.equal(await mode('.'), 0o700);
    assert.deepEqual((await fs.readdir(dataDir)).sort(), ['seal'], 'no temporary directory is left behind');
  });

  it('agrees on one certificate when several callers race', async () => {
    const dataDir = await tempDir();
    const all = await Promise.all(Array.from({ length: 4 }, () => loadSealCertificate({ dataDir })));
    const stored = await fs.readFile(path.join(dataDir, 'seal', 'seal.p12'));
    for (const certificate of all) assert.deepEqual(certificate.p12, stored);
    assert.deepEqual((await fs.readdir(dataDir)).sort(), ['seal']);
  });

  it('uses a configured PKCS#12 (SVC_SIGNING_P12) instead, chain included, and creates nothing', async () => {
    const directory = await tempDir();
    const p12Path = path.join(directory, 'company.p12');
    await fs.writeFile(p12Path, issuedP12('Example Corp document seal', 's3cret'));
    const dataDir = path.join(directory, 'data');
    const certificate = await loadSealCertificate({ dataDir, p12Path, passphrase: 's3cret' });
    const sealer = createSealer(certificate);
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
