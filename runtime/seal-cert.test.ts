import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import forge from 'node-forge';
import { loadConfig } from '../lib/config/config';
import { openP12, openSigningKey } from '../lib/pdf/pades/pki';
import { createSealer, loadSealCertificate } from '../lib/pdf/seal';
import { requireProductionSettings } from './lifecycle';
import { ensureSealFile } from './seal-cert';

const production = {
  SVC_ENV: 'production',
  SVC_SECRET_KEY: 'x'.repeat(40),
  SMTP_URL: 'smtp://mail:25',
  DATABASE_URL: 'postgres://db/svc',
  TEMPORAL_ADDRESS: 'temporal:7233',
  SVC_TSA_URL: 'https://tsa.example/tsr',
};

describe('the seal certificate comes from configuration in production', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-seal-cert-'));
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('npm run api / worker refuse production without SVC_SIGNING_P12, rather than each make its own certificate', () => {
    for (const processName of ['api', 'worker']) {
      assert.throws(
        () => requireProductionSettings(loadConfig(production), processName),
        new RegExp(`npm run ${processName} in production needs SVC_SIGNING_P12`),
      );
      requireProductionSettings(loadConfig({ ...production, SVC_SIGNING_P12: '/run/seal/seal.p12' }), processName);
    }
    // Outside production a missing certificate is made once in the data dir, as before.
    requireProductionSettings(loadConfig({ ...production, SVC_ENV: 'test' }), 'api');
  });

  it('runtime/seal-cert.ts writes once a PKCS#12 whose seal certificate a local CA issued (the CA beside it), opening with SVC_SIGNING_P12_PASSPHRASE, and keeps it afterwards', async () => {
    const file = path.join(scratch, 'seal', 'seal.p12');
    assert.equal(await ensureSealFile(file, 'seal-passphrase'), 'created');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const written = fs.readFileSync(file);
    const certificate = await loadSealCertificate({ dataDir: scratch, p12Path: file, passphrase: 'seal-passphrase' });
    assert.match(createSealer(await openSigningKey(certificate)).subject, /^CN=Document seal, O=E-signature service$/);
    const ca = forge.pki.certificateFromPem(fs.readFileSync(`${file}.ca.pem`, 'utf8'));
    const opened = openP12(certificate);
    assert.ok(ca.verify(opened.certificate), 'the seal certificate is issued by the CA written beside it, not self-signed');
    assert.deepEqual(
      opened.chain.map((cert) => cert.subject.getField('CN').value),
      [ca.subject.getField('CN').value],
      'the PKCS#12 carries the chain',
    );
    assert.equal(await ensureSealFile(file, 'seal-passphrase'), 'kept');
    assert.ok(fs.readFileSync(file).equals(written), 'not replaced');
    await assert.rejects(ensureSealFile(file, 'another passphrase'), /cannot be opened/);
    assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['seal.p12', 'seal.p12.ca.pem'], 'no temporary file, no pki/ dir');
  });
});
