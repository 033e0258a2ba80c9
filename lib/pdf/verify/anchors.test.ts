import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as pkijs from 'pkijs';
import { tempDir } from '../../../test/pdf-tools';
import { ConfigError } from '../../config/errors';
import { subjectOf } from '../pades/cms';
import { createLocalSeal } from '../pades/pki';
import { loadDevelopmentPki } from '../seal-certificate';
import { loadTrustAnchors, pemCertificates } from './anchors';

const subjects = (anchors: Uint8Array[]) => anchors.map((der) => subjectOf(pkijs.Certificate.fromBER(der)));

describe('the verifier’s trust anchors', () => {
  it('are the CA heading the seal’s chain (not the seal itself) and the development TSA’s, then every certificate of the bundle', async () => {
    const pki = await loadDevelopmentPki(await tempDir());
    const own = await loadTrustAnchors({ own: [pki.seal, pki.tsa] });
    assert.deepEqual(subjects(own), [
      'CN=E-signature service development CA, O=E-signature service',
      'CN=E-signature service development CA, O=E-signature service',
    ]);
    const local = createLocalSeal('passphrase');
    const bundle = path.join(await tempDir(), 'anchors.pem');
    await fs.writeFile(bundle, `${pki.caPem}\n${local.caPem}`);
    const withBundle = await loadTrustAnchors({ own: [local], bundle });
    assert.deepEqual(subjects(withBundle), [
      'CN=E-signature service local CA, O=E-signature service',
      'CN=E-signature service development CA, O=E-signature service',
      'CN=E-signature service local CA, O=E-signature service',
    ]);
    assert.equal(pemCertificates(`${pki.caPem}${local.caPem}`).length, 2);
  });

  it('stop the start with a ConfigError naming SVC_VERIFY_TRUST_ANCHORS when the bundle is missing, holds no certificate or a broken one', async () => {
    const directory = await tempDir();
    const empty = path.join(directory, 'empty.pem');
    await fs.writeFile(empty, 'no certificates here\n');
    const broken = path.join(directory, 'broken.pem');
    await fs.writeFile(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    for (const [bundle, message] of [
      [path.join(directory, 'missing.pem'), /SVC_VERIFY_TRUST_ANCHORS: cannot read .*missing\.pem/],
      [empty, /SVC_VERIFY_TRUST_ANCHORS: .*empty\.pem holds no PEM certificate/],
      [broken, /SVC_VERIFY_TRUST_ANCHORS: certificate 1 of .*broken\.pem cannot be read/],
    ] as const) {
      await assert.rejects(
        loadTrustAnchors({ own: [], bundle }),
        (error: Error) => error instanceof ConfigError && message.test(error.message),
      );
    }
  });
});
