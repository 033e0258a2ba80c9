// A real public-key infrastructure on loopback for tests of sealed PDFs: CAs, a seal and a TSA
// certificate made by the `openssl` command line, with an OCSP responder, a CRL and CA repository,
// and an RFC 3161 timestamp authority served over HTTP. Nothing here is mocked: every answer is
// what `openssl ocsp`, `openssl ca -gencrl` and `openssl ts -reply` produce.
// The commands and configuration are in pki-openssl.ts, the HTTP services in pki-services.ts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openssl, opensslConfig, startDate } from './pki-openssl';
import { type PkiService, PUBLISHED, startPkiServices } from './pki-services';

export type { PkiService } from './pki-services';

export interface TestPki {
  dir: string;
  /** Paths (PEM) of the trust anchor, the CA that issued the seal, TSA and OCSP certificates, and every CA certificate. */
  rootCaPem: string;
  issuingCaPem: string;
  chainPem: string;
  /** PKCS#12 of the seal key, its certificate and the CA chain, readable by node-forge. */
  sealP12Path: string;
  sealPassphrase: string;
  sealCertPem: string;
  tsaCertPem: string;
  /** Serial numbers as `openssl x509 -serial` prints them (upper-case hex). */
  serials: { seal: string; tsa: string };
  tsaUrl: string;
  ocspUrl: string;
  /** The issuing CA's CRL (DER) and certificate (DER), as the leaf certificates' CDP and AIA name them. */
  crlUrl: string;
  caIssuersUrl: string;
  /** Marks the certificate revoked (keyCompromise) for OCSP and publishes a new CRL. */
  revoke(which: 'seal' | 'tsa'): Promise<void>;
  tsa: PkiService;
  ocsp: PkiService;
  /** The server of ca.cer, ca.crl, root.cer and root.crl. */
  repository: PkiService;
  close(): Promise<void>;
}

/**
 * Builds the PKI in a fresh temporary directory and starts its servers on loopback. With
 * `intermediate` (the default) the chain is root → issuing CA → leaves; without it, root → leaves.
 */
export async function startTestPki(options: { intermediate?: boolean } = {}): Promise<TestPki> {
  const intermediate = options.intermediate ?? true;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-pki-'));
  const cwd = dir;
  const file = (name: string) => path.join(dir, name);
  const issuer = intermediate ? 'issuing_ca' : 'root_ca';
  const issuerDir = file(intermediate ? 'issuing' : 'root');
  const { ocsp, tsa, repository } = await startPkiServices(dir, issuerDir);
  const services = [ocsp, tsa, repository];
  const close = async () => {
    await Promise.all(services.map((service) => service.stop()));
    await fs.rm(dir, { recursive: true, force: true });
  };

  try {
    const urls = { repository: `http://127.0.0.1:${repository.port}`, ocsp: `http://127.0.0.1:${ocsp.port}` };
    for (const sub of ['root/newcerts', 'issuing/newcerts', 'tsa', 'public', 'work']) await fs.mkdir(file(sub), { recursive: true });
    for (const ca of ['root', 'issuing']) {
      await fs.writeFile(file(`${ca}/index.txt`), '');
      await fs.writeFile(file(`${ca}/crlnumber`), '1000\n');
    }
    await fs.writeFile(file('tsa/serial'), '01\n');
    await fs.writeFile(file('openssl.cnf'), opensslConfig(dir, urls));
    const config = ['-config', file('openssl.cnf')];

    const names = ['root', ...(intermediate ? ['issuing'] : []), 'seal', 'tsa', 'ocsp'];
    await Promise.all(
      names.map((name) =>
        openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', file(`${name}.key`)], { cwd }),
      ),
    );
    // `openssl ca` rewrites its index: one at a time.
    const issue = async (name: string, subject: string, ca: string, extensions: string, extra: string[] = []) => {
      const csr = file(`work/${name}.csr`);
      await openssl(['req', '-new', '-key', file(`${name}.key`), '-subj', `/O=Svc Test/CN=${subject}`, '-out', csr], { cwd });
      const validity = ['-startdate', startDate(), '-days', '825'];
      const signing = ['-name', ca, '-extensions', extensions, ...validity, ...extra];
      await openssl(['ca', '-batch', '-notext', ...config, ...signing, '-in', csr, '-out', file(`${name}.pem`)], { cwd });
    };
    await issue('root', 'Svc Test Root CA', 'root_ca', 'root_ext', ['-selfsign', '-keyfile', file('root.key')]);
    await fs.copyFile(file('root.pem'), file('root/ca.pem'));
    await fs.copyFile(file('root.key'), file('root/ca.key'));
    if (intermediate) {
      await issue('issuing', 'Svc Test Issuing CA', 'root_ca', 'intermediate_ext');
      await fs.copyFile(file('issuing.pem'), file('issuing/ca.pem'));
      await fs.copyFile(file('issuing.key'), file('issuing/ca.key'));
    }
    await issue('seal', 'Svc Test Document Seal', issuer, 'seal_ext');
    await issue('tsa', 'Svc Test Timestamp Authority', issuer, 'tsa_ext');
    await issue('ocsp', 'Svc Test OCSP Responder', issuer, 'ocsp_ext');

    const caPems = intermediate ? [file('issuing.pem'), file('root.pem')] : [file('root.pem')];
    await fs.writeFile(file('chain.pem'), (await Promise.all(caPems.map((pem) => fs.readFile(pem, 'utf8')))).join(''));
    const toDer = (pem: string, name: string) => openssl(['x509', '-in', pem, '-outform', 'DER', '-out', file(`public/${name}`)], { cwd });
    await toDer(file('root.pem'), 'root.cer');
    await toDer(path.join(issuerDir, 'ca.pem'), 'ca.cer');
    const publishCrls = async () => {
      for (const [ca, name] of [
        ['root_ca', 'root'],
        [issuer, 'ca'],
      ]) {
        const pem = file(`work/${name}-crl.pem`);
        await openssl(['ca', '-gencrl', ...config, '-name', ca, '-out', pem], { cwd });
        await openssl(['crl', '-in', pem, '-outform', 'DER', '-out', file(`work/${name}.crl`)], { cwd });
        // Renamed into place: a download during revoke() sees the old list or the new one, never half.
        await fs.rename(file(`work/${name}.crl`), file(`public/${name}.crl`));
      }
    };
    await publishCrls();

    const sealPassphrase = randomBytes(12).toString('base64url');
    // 3DES and a SHA-1 MAC: OpenSSL 3's default AES-256/PBKDF2 is more than node-forge reads.
    await openssl(
      ['pkcs12', '-export', '-inkey', file('seal.key'), '-in', file('seal.pem'), '-certfile', file('chain.pem')]
        .concat(['-name', 'Svc Test Document Seal', '-passout', 'env:SVC_PKI_PASSPHRASE', '-out', file('seal.p12')])
        .concat(['-certpbe', 'PBE-SHA1-3DES', '-keypbe', 'PBE-SHA1-3DES', '-macalg', 'sha1']),
      { cwd, env: { ...process.env, SVC_PKI_PASSPHRASE: sealPassphrase } },
    );
    // Ready means answering: each published file downloads before the PKI is handed out.
    for (const name of PUBLISHED) {
      const reply = await fetch(`${urls.repository}/${name}`);
      await reply.arrayBuffer();
      if (!reply.ok) throw new Error(`the test PKI's repository did not serve ${name}: HTTP ${reply.status}`);
    }
    const serialOf = async (pem: string) => /serial=(\S+)/.exec(await openssl(['x509', '-noout', '-serial', '-in', pem], { cwd }))![1];

    return {
      dir,
      rootCaPem: file('root.pem'),
      issuingCaPem: file(intermediate ? 'issuing.pem' : 'root.pem'),
      chainPem: file('chain.pem'),
      sealP12Path: file('seal.p12'),
      sealPassphrase,
      sealCertPem: file('seal.pem'),
      tsaCertPem: file('tsa.pem'),
      serials: { seal: await serialOf(file('seal.pem')), tsa: await serialOf(file('tsa.pem')) },
      tsaUrl: `http://127.0.0.1:${tsa.port}/`,
      ocspUrl: urls.ocsp,
      crlUrl: `${urls.repository}/ca.crl`,
      caIssuersUrl: `${urls.repository}/ca.cer`,
      revoke: async (which) => {
        await openssl(['ca', ...config, '-name', issuer, '-revoke', file(`${which}.pem`), '-crl_reason', 'keyCompromise'], { cwd });
        await publishCrls();
      },
      tsa,
      ocsp,
      repository,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
