import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { P12Signer } from '@signpdf/signer-p12';
import signpdfModule from '@signpdf/signpdf';
import forge from 'node-forge';
import { PDFDocument } from 'pdf-lib';
import { ensurePdfcpu, PDFCPU_VERSION } from '../runtime/pdfcpu';
import { run } from './pdf-tools';
import { opensslTsVerify, pdfcpuValidate } from './pdf-validators';
import { startTestPki, type TestPki } from './pki';

const pdfcpu = () => ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY });

// Under tsx the CommonJS default export arrives wrapped.
const signpdf = ((signpdfModule as unknown as { default?: typeof signpdfModule }).default ?? signpdfModule) as typeof signpdfModule;

async function openssl(args: string[]): Promise<string> {
  const result = await run('openssl', args);
  assert.equal(result.code, 0, `openssl ${args.join(' ')}:\n${result.stdout}${result.stderr}`);
  return result.stdout + result.stderr;
}

/** A one-page PDF sealed (adbe.pkcs7.detached) by @signpdf with the PKI's PKCS#12: no code of the service involved. */
async function signedPdf(pki: TestPki): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage().drawText('A document sealed on the test PKI', { x: 50, y: 700 });
  pdflibAddPlaceholder({ pdfDoc: doc, reason: 'harness check', contactInfo: '', name: 'Svc Test Document Seal', location: '' });
  const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
  return signpdf.sign(prepared, new P12Signer(await fs.readFile(pki.sealP12Path), { passphrase: pki.sealPassphrase }));
}

describe('the test PKI (openssl on loopback)', () => {
  let pki: TestPki;
  let work: string;
  before(async () => {
    pki = await startTestPki();
    work = path.join(pki.dir, 'test');
    await fs.mkdir(work);
  });
  after(() => pki?.close());

  it('chains the seal and TSA certificates to the root through the issuing CA', async () => {
    const output = await openssl(['verify', '-CAfile', pki.rootCaPem, '-untrusted', pki.chainPem, pki.sealCertPem, pki.tsaCertPem]);
    assert.match(output, /seal\.pem: OK/);
    assert.match(output, /tsa\.pem: OK/);
    const text = await openssl(['x509', '-in', pki.sealCertPem, '-noout', '-text']);
    assert.match(text, /OCSP - URI:http:\/\/127\.0\.0\.1:\d+/);
    assert.ok(text.includes(`CA Issuers - URI:${pki.caIssuersUrl}`) && text.includes(`URI:${pki.crlUrl}`));
    const issuer = Buffer.from(await (await fetch(pki.caIssuersUrl)).arrayBuffer());
    assert.match(
      await openssl(['x509', '-inform', 'DER', '-noout', '-subject', '-in', await write('ca.cer', issuer)]),
      /Svc Test Issuing CA/,
    );
  });

  it('packs the seal key, its certificate and the chain in a PKCS#12 that node-forge opens', async () => {
    const der = forge.util.createBuffer((await fs.readFile(pki.sealP12Path)).toString('binary'));
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), pki.sealPassphrase);
    const certificates = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? []).map((bag) => bag.cert!);
    const names = certificates.map((cert) => cert.subject.getField('CN').value);
    assert.deepEqual(names.sort(), ['Svc Test Document Seal', 'Svc Test Issuing CA', 'Svc Test Root CA']);
    const keyBags = p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? [];
    assert.equal(keyBags.length, 1);
    const key = keyBags[0].key as forge.pki.rsa.PrivateKey;
    const seal = certificates.find((cert) => cert.subject.getField('CN').value === 'Svc Test Document Seal')!;
    assert.equal((seal.publicKey as forge.pki.rsa.PublicKey).n.toString(16), key.n.toString(16));
  });

  it('stamps an RFC 3161 query over HTTP, with a token openssl ts -verify accepts, and goes down and up on request', async () => {
    const data = await write('data.txt', Buffer.from('the bytes a seal covers'));
    const queryFile = path.join(work, 'query.tsq');
    await openssl(['ts', '-query', '-data', data, '-sha256', '-cert', '-out', queryFile]);
    const query = await fs.readFile(queryFile);
    const stamp = () => fetch(pki.tsaUrl, { method: 'POST', headers: { 'Content-Type': 'application/timestamp-query' }, body: query });
    const before = pki.tsa.requests;
    const reply = await stamp();
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/timestamp-reply');
    const replyFile = await write('reply.tsr', Buffer.from(await reply.arrayBuffer()));
    assert.match(await openssl(['ts', '-reply', '-in', replyFile, '-text']), /Status: Granted\.[\s\S]*Hash Algorithm: sha256/);
    await openssl(['ts', '-reply', '-in', replyFile, '-token_out', '-out', path.join(work, 'token.der')]);
    const token = await fs.readFile(path.join(work, 'token.der'));
    const byData = await opensslTsVerify({ token, data: await fs.readFile(data), caPem: pki.rootCaPem });
    assert.ok(byData.ok, byData.output);
    const digest = createHash('sha256')
      .update(await fs.readFile(data))
      .digest();
    assert.ok((await opensslTsVerify({ token, digest, caPem: pki.rootCaPem })).ok);
    const otherDigest = createHash('sha256').update('other bytes').digest();
    assert.equal((await opensslTsVerify({ token, digest: otherDigest, caPem: pki.rootCaPem })).ok, false);

    const wrongType = await fetch(pki.tsaUrl, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: query });
    assert.equal(wrongType.status, 415);
    await pki.tsa.stop();
    await assert.rejects(stamp(), (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED');
    await pki.tsa.start();
    assert.equal((await stamp()).status, 200);
    assert.equal(pki.tsa.requests - before, 3);
  });

  it('is trusted by pdfcpu, which asks the CRL or OCSP on loopback, for a PDF sealed with the PKCS#12', async () => {
    const pdf = await write('sealed.pdf', await signedPdf(pki));
    const result = await pdfcpuValidate(await pdfcpu(), pdf, { trustedCaPem: pki.rootCaPem });
    assert.equal(result.signatures.length, 1, result.output);
    assert.equal(result.signatures[0].status, 'signature is valid', result.output);
    assert.match(result.output, /Revocation: Local:\s+ok\s+Reason: CRL: certificate status good/);
    const asked = pki.ocsp.requests;
    const byOcsp = await pdfcpuValidate(await pdfcpu(), pdf, { trustedCaPem: pki.rootCaPem, revocation: 'ocsp' });
    assert.equal(byOcsp.signatures[0]?.status, 'signature is valid', byOcsp.output);
    assert.match(byOcsp.output, /Revocation: Local:\s+ok\s+Reason: OCSP: certificate status good/);
    assert.ok(pki.ocsp.requests > asked);
    // Without the CA in its store pdfcpu builds no chain: the store is the isolated one, not ~/.config.
    const untrusted = await pdfcpuValidate(await pdfcpu(), pdf);
    assert.equal(untrusted.signatures[0]?.status, 'validity of the signature is unknown', untrusted.output);
    assert.match(untrusted.signatures[0].reason, /certificate path was not resolved/);
  });

  // Last: it revokes the seal for good.
  it('answers OCSP good, then revoked after revoke(), and lists the serial in the new CRL', async () => {
    const ask = (certificate: string) =>
      openssl(['ocsp', '-issuer', pki.issuingCaPem, '-cert', certificate, '-url', pki.ocspUrl, '-CAfile', pki.rootCaPem]);
    const good = await ask(pki.sealCertPem);
    assert.match(good, /Response verify OK/);
    assert.match(good, /seal\.pem: good/);
    const crl = async () => {
      const reply = await fetch(pki.crlUrl);
      assert.equal(reply.headers.get('content-type'), 'application/pkix-crl');
      const file = await write('ca.crl', Buffer.from(await reply.arrayBuffer()));
      return openssl(['crl', '-inform', 'DER', '-in', file, '-noout', '-text']);
    };
    const first = await crl();
    assert.match(first, /Issuer: CN = Svc Test Issuing CA/);
    assert.match(first, /No Revoked Certificates/);

    await pki.revoke('seal');
    const revoked = await ask(pki.sealCertPem);
    assert.match(revoked, /Response verify OK/);
    assert.match(revoked, /seal\.pem: revoked[\s\S]*Reason: keyCompromise/);
    assert.match(await crl(), new RegExp(`Serial Number: ${pki.serials.seal}[\\s\\S]*Key Compromise`));
    assert.match(await ask(pki.tsaCertPem), /tsa\.pem: good/);
    const pdf = await write('revoked.pdf', await signedPdf(pki));
    for (const revocation of ['crl', 'ocsp'] as const) {
      const result = await pdfcpuValidate(await pdfcpu(), pdf, { trustedCaPem: pki.rootCaPem, revocation });
      assert.equal(result.signatures[0]?.reason, "signer's certificate has been revoked", result.output);
      assert.match(
        result.output,
        new RegExp(`Revocation: Local:\\s+not ok\\s+Reason: ${revocation.toUpperCase()}: certificate status revoked`),
      );
    }
  });

  async function write(name: string, bytes: Buffer): Promise<string> {
    const file = path.join(work, name);
    await fs.writeFile(file, bytes);
    return file;
  }
});

describe('the test PKI without an intermediate', () => {
  it('issues the seal from the root, and OCSP answers for it', async () => {
    const pki = await startTestPki({ intermediate: false });
    try {
      assert.equal(pki.issuingCaPem, pki.rootCaPem);
      assert.match(await openssl(['verify', '-CAfile', pki.rootCaPem, pki.sealCertPem]), /OK/);
      const answer = await openssl([
        'ocsp',
        '-issuer',
        pki.rootCaPem,
        '-cert',
        pki.sealCertPem,
        '-url',
        pki.ocspUrl,
        '-CAfile',
        pki.rootCaPem,
      ]);
      assert.match(answer, /seal\.pem: good/);
    } finally {
      await pki.close();
    }
    await assert.rejects(fs.access(pki.dir));
  });
});

describe('pdfcpu', () => {
  it(`is built at ${PDFCPU_VERSION} (go install, cached) or taken from PDFCPU_BINARY`, async () => {
    const binary = await ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY });
    const result = await run(binary, ['-c', 'disable', 'version']);
    assert.match(result.stdout, new RegExp(`^version: ${PDFCPU_VERSION.replaceAll('.', '\\.')}`, 'm'));
  });
});
