// A real public-key infrastructure on loopback for tests of sealed PDFs: CAs, a seal and a TSA
// certificate made by the `openssl` command line, with an OCSP responder, a CRL and CA repository,
// and an RFC 3161 timestamp authority served over HTTP. Nothing here is mocked: every answer is
// what `openssl ocsp`, `openssl ca -gencrl` and `openssl ts -reply` produce.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** One HTTP service of the PKI, on a fixed loopback port that survives stop() and start(). */
export interface PkiService {
  /** Requests received since the PKI started. */
  readonly requests: number;
  /** Closes the port (clients then get ECONNREFUSED) and drops open connections. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

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

async function openssl(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    const { stdout } = await exec('openssl', args, { cwd: options.cwd, env: options.env, timeout: 30_000, maxBuffer: 16 << 20 });
    return stdout;
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed: ${failed.stderr || failed.message}`);
  }
}

const MAX_BODY = 64 * 1024;

function body(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) request.destroy(new Error('request too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

type Handler = (request: http.IncomingMessage) => Promise<{ status: number; type?: string; body?: Buffer }>;

/** A loopback HTTP server on a port of its own; a handler that throws answers 500 with the reason. */
async function loopbackService(handler: Handler): Promise<PkiService & { port: number }> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests += 1;
    handler(request).then(
      (answer) => {
        response.writeHead(answer.status, answer.type ? { 'Content-Type': answer.type } : {});
        response.end(answer.body);
      },
      (error: Error) => {
        response.writeHead(500, { 'Content-Type': 'text/plain' });
        response.end(error.message);
      },
    );
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const port = await listen(0);
  return {
    port,
    get requests() {
      return requests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    start: async () => {
      if (!server.listening) await listen(port);
    },
  };
}

/** `openssl ca` settings for one CA directory; `-name` picks the CA. */
function caSection(name: string, dir: string): string {
  return `[${name}]
dir = ${dir}
database = $dir/index.txt
new_certs_dir = $dir/newcerts
crlnumber = $dir/crlnumber
certificate = $dir/ca.pem
private_key = $dir/ca.key
default_md = sha256
default_crl_days = 7
policy = policy_any
unique_subject = no
copy_extensions = none
rand_serial = yes
crl_extensions = crl_ext
`;
}

function opensslConfig(dir: string, urls: { repository: string; ocsp: string }): string {
  const leaf = `subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${urls.ocsp}, caIssuers;URI:${urls.repository}/ca.cer
crlDistributionPoints = URI:${urls.repository}/ca.crl
`;
  return `${caSection('root_ca', path.join(dir, 'root'))}
${caSection('issuing_ca', path.join(dir, 'issuing'))}
[policy_any]
commonName = supplied
organizationName = optional

[crl_ext]
authorityKeyIdentifier = keyid:always

[root_ext]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[intermediate_ext]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = caIssuers;URI:${urls.repository}/root.cer
crlDistributionPoints = URI:${urls.repository}/root.crl

[seal_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
# documentSigning (RFC 9336), and emailProtection for validators that predate it.
extendedKeyUsage = 1.3.6.1.5.5.7.3.36, emailProtection
${leaf}
[tsa_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
${leaf}
[ocsp_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, OCSPSigning
# id-pkix-ocsp-nocheck: a client does not ask the responder about its own certificate.
noCheck = ignored
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[tsa]
default_tsa = tsa_config

[tsa_config]
serial = ${path.join(dir, 'tsa', 'serial')}
crypto_device = builtin
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
clock_precision_digits = 0
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;
}

/** Serialises the jobs given to it (openssl ts keeps its serial number in a file it rewrites). */
function queue(): <T>(job: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (job) => {
    const result = tail.then(job);
    tail = result.catch(() => undefined);
    return result;
  };
}

/** Certificates are valid from an hour back, so a validator whose clock is a little behind still accepts them. */
function startDate(): string {
  return `${new Date(Date.now() - 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
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
  /** Runs openssl on the request body in a file of its own and answers the file it writes. */
  const answer = async (der: Buffer, args: (input: string, output: string) => string[]) => {
    const base = file(`work/${randomBytes(8).toString('hex')}`);
    await fs.writeFile(`${base}.in`, der);
    try {
      await openssl(args(`${base}.in`, `${base}.out`), { cwd });
      return await fs.readFile(`${base}.out`);
    } finally {
      await Promise.all([fs.rm(`${base}.in`, { force: true }), fs.rm(`${base}.out`, { force: true })]);
    }
  };

  const responder = ['-index', path.join(issuerDir, 'index.txt'), '-CA', path.join(issuerDir, 'ca.pem')];
  const ocsp = await loopbackService(async (request) => {
    // RFC 6960 appendix A: POST carries the DER request, GET its base64 in the path.
    const der = request.method === 'POST' ? await body(request) : Buffer.from(decodeURIComponent((request.url ?? '/').slice(1)), 'base64');
    if (der.length === 0) return { status: 400 };
    // The index is read per request, so a revoke() is answered at once.
    const signer = ['-rsigner', file('ocsp.pem'), '-rkey', file('ocsp.key'), '-ndays', '1'];
    const reply = await answer(der, (input, output) => ['ocsp', ...responder, ...signer, '-reqin', input, '-respout', output]);
    return { status: 200, type: 'application/ocsp-response', body: reply };
  });
  const stamp = queue();
  const tsa = await loopbackService(async (request) => {
    if (request.method !== 'POST') return { status: 405 };
    if (request.headers['content-type'] !== 'application/timestamp-query') return { status: 415 };
    const query = await body(request);
    const signer = ['-inkey', file('tsa.key'), '-signer', file('tsa.pem'), '-chain', file('chain.pem')];
    const reply = await stamp(() =>
      answer(query, (input, output) => ['ts', '-reply', '-config', file('openssl.cnf'), ...signer, '-queryfile', input, '-out', output]),
    );
    return { status: 200, type: 'application/timestamp-reply', body: reply };
  });
  const published = new Set(['ca.cer', 'ca.crl', 'root.cer', 'root.crl']);
  const repository = await loopbackService(async (request) => {
    const name = (request.url ?? '').slice(1);
    if (request.method !== 'GET' || !published.has(name)) return { status: 404 };
    const type = name.endsWith('.crl') ? 'application/pkix-crl' : 'application/pkix-cert';
    return { status: 200, type, body: await fs.readFile(file(`public/${name}`)) };
  });
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
    for (const name of published) {
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
