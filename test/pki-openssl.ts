// The `openssl` command line and the configuration the test PKI's CAs and its TSA run on.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Runs `openssl`; a failure names the command and what openssl printed. */
export async function openssl(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    const { stdout } = await exec('openssl', args, { cwd: options.cwd, env: options.env, timeout: 30_000, maxBuffer: 16 << 20 });
    return stdout;
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed: ${failed.stderr || failed.message}`);
  }
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

export function opensslConfig(dir: string, urls: { repository: string; ocsp: string }): string {
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

/** Certificates are valid from an hour back, so a validator whose clock is a little behind still accepts them. */
export function startDate(): string {
  return `${new Date(Date.now() - 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}
