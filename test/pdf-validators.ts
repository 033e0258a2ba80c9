// Independent validators of sealed PDFs and their timestamps: pdfcpu (runtime/pdfcpu.ts builds it)
// and `openssl ts -verify`, each run on real files with a trust store of the test's own.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface ValidatorResult {
  code: number;
  /** stdout and stderr together. */
  output: string;
}

function run(binary: string, args: string[]): Promise<ValidatorResult> {
  return new Promise((resolve) => {
    execFile(binary, args, { timeout: 120_000, maxBuffer: 64 << 20, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

async function withTempDir<T>(prefix: string, use: (directory: string) => Promise<T>): Promise<T> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    return await use(directory);
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
}

/** One signature as `pdfcpu signatures validate` heads it: "Type: …", "Status: …", "Reason: …". */
export interface PdfcpuSignature {
  type: string;
  status: string;
  reason: string;
}

/**
 * `pdfcpu signatures validate -a -f <pdf>` (every signature, full detail) with a configuration of its
 * own (`-c <dir>`: never ~/.config/pdfcpu), whose certificate store holds only `trustedCaPem`
 * (`pdfcpu certificates import`) and which may fetch revocation data from loopback
 * (`allowedRevocationHosts`: pdfcpu refuses private and loopback CRL/OCSP URLs otherwise).
 * pdfcpu exits 0 whatever the verdict; read `signatures`. A valid signature reads:
 *
 *   1:
 *          Type: form signature (authoritative, invisible, signed)   ("certified" for a DocMDP seal)
 *        Status: signature is valid                                  (else "… is invalid", "validity … unknown")
 *        Reason: no reason
 *        Signed: 2026-11-26 01:46:04 +0000
 *   DocModified: unknown
 *       Details: SubFilter ETSI.CAdES.detached, SignerIdentity …, then per certificate of the chain
 *                "Local Path: Status: ok" and for the signer "Revocation: Local: ok / Reason: CRL:
 *                certificate status good", then "Problems:". v0.15.0 lists "pkcs7: embedded timestamp
 *                token observed but not fully authenticated" for every signature timestamp (it does
 *                not verify those), and a DSS with a /VRI entry makes each signature "unsupported".
 */
export async function pdfcpuValidate(
  binary: string,
  pdfPath: string,
  options: { trustedCaPem?: string; revocation?: 'crl' | 'ocsp' } = {},
): Promise<ValidatorResult & { signatures: PdfcpuSignature[] }> {
  return withTempDir('svc-pdfcpu-', async (conf) => {
    // The first command writes <conf>/pdfcpu/config.yml, edited below before validating.
    const setup = options.trustedCaPem ? ['certificates', 'import', options.trustedCaPem] : ['version'];
    const prepared = await run(binary, ['-c', conf, ...setup]);
    if (prepared.code !== 0) throw new Error(`pdfcpu ${setup.join(' ')} failed: ${prepared.output}`);
    const configFile = path.join(conf, 'pdfcpu', 'config.yml');
    const config = (await fs.readFile(configFile, 'utf8'))
      .replace(/^allowedRevocationHosts:.*$/m, 'allowedRevocationHosts: [127.0.0.1, localhost]')
      .replace(/^preferredCertRevocationChecker:.*$/m, `preferredCertRevocationChecker: ${options.revocation ?? 'crl'}`);
    await fs.writeFile(configFile, config);
    const result = await run(binary, ['-c', conf, 'signatures', 'validate', '-a', '-f', pdfPath]);
    return { ...result, signatures: pdfcpuSignatures(result.output) };
  });
}

/** The heading lines of each signature in pdfcpu's report. */
export function pdfcpuSignatures(output: string): PdfcpuSignature[] {
  const heading = /^\d+:\n\s+Type: (.*)\n\s+Status: (.*)\n\s+Reason: (.*)$/gm;
  return [...output.matchAll(heading)].map(([, type, status, reason]) => ({ type, status, reason }));
}

/**
 * `openssl ts -verify` of a TimeStampToken (DER ContentInfo, as in a signature's unsigned attribute
 * or a document timestamp's /Contents) against `caPem`, over the SHA-256 imprint `digest` or over
 * `data`. `untrustedPem` supplies intermediates the token does not carry.
 */
export async function opensslTsVerify(options: {
  token: Buffer;
  digest?: Buffer;
  data?: Buffer;
  caPem: string;
  untrustedPem?: string;
}): Promise<{ ok: boolean; output: string }> {
  if (!options.digest === !options.data) throw new Error('opensslTsVerify takes a digest or data, not both');
  return withTempDir('svc-ts-verify-', async (directory) => {
    const tokenFile = path.join(directory, 'token.der');
    await fs.writeFile(tokenFile, options.token);
    const args = ['ts', '-verify', '-token_in', '-in', tokenFile, '-CAfile', options.caPem];
    if (options.untrustedPem) args.push('-untrusted', options.untrustedPem);
    if (options.digest) args.push('-digest', options.digest.toString('hex'));
    else {
      const dataFile = path.join(directory, 'data');
      await fs.writeFile(dataFile, options.data!);
      args.push('-data', dataFile);
    }
    const result = await run('openssl', args);
    return { ok: result.code === 0 && /^Verification: OK$/m.test(result.output), output: result.output };
  });
}
