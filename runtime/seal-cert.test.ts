import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../lib/config/config';
import { createSealer, loadSealCertificate } from '../lib/pdf/seal';
import { requireProductionSettings } from './lifecycle';
import { ensureSealFile } from './seal-cert';

const production = {
  SVC_ENV: 'production',
  SVC_SECRET_KEY: 'x'.repeat(40),
  SMTP_URL: 'smtp://mail:25',
  DATABASE_URL: 'postgres://db/svc',
  TEMPORAL_ADDRESS: 'temporal:7233',
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

  it('runtime/seal-cert.ts writes a self-signed PKCS#12 once that opens with SVC_SIGNING_P12_PASSPHRASE, and keeps it afterwards', async () => {
    const file = path.join(scratch, 'seal', 'seal.p12');
    assert.equal(await ensureSealFile(file, 'seal-passphrase'), 'created');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const written = fs.readFileSync(file);
    const certificate = await loadSealCertificate({ dataDir: scratch, p12Path: file, passphrase: 'seal-passphrase' });
    assert.match(createSealer(certificate).subject, /CN=Document seal \(self-signed\)/);
    assert.equal(await ensureSealFile(file, 'seal-passphrase'), 'kept');
    assert.ok(fs.readFileSync(file).equals(written), 'not replaced');
    await assert.rejects(ensureSealFile(file, 'another passphrase'), /cannot be opened/);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['seal.p12'], 'nothing else in its directory (no temporary file, no seal/ dir)');
  });
});
