// `node --import tsx runtime/seal-cert.ts <file>`: writes a seal certificate issued by a local CA made
// for it (PKCS#12 with the CA in its chain, passphrase SVC_SIGNING_P12_PASSPHRASE) to <file> unless one
// is there, and the CA's certificate beside it (<file>.ca.pem), for SVC_SIGNING_P12. A deployment runs
// it once (docker-compose.yml's seal-cert service) and gives every process the file. No validator
// trusts that CA unless told to: a production deployment buys an AATL/EUTL-trusted certificate.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createLocalSeal } from '../lib/pdf/pades/pki';
import { loadSealCertificate } from '../lib/pdf/seal-certificate';

/** Creates the file (0600, written whole under a temporary name) unless it exists; an existing one must open with `passphrase`. */
export async function ensureSealFile(file: string, passphrase: string): Promise<'created' | 'kept'> {
  try {
    await fs.access(file);
    await loadSealCertificate({ dataDir: path.dirname(file), p12Path: file, passphrase });
    return 'kept';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const created = createLocalSeal(passphrase);
  await fs.writeFile(`${file}.ca.pem`, created.caPem, { mode: 0o644 });
  await fs.writeFile(temporary, created.p12, { mode: 0o600 });
  await fs.rename(temporary, file);
  return 'created';
}

if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node --import tsx runtime/seal-cert.ts <file.p12>  (passphrase from SVC_SIGNING_P12_PASSPHRASE)\n');
    process.exit(2);
  }
  ensureSealFile(path.resolve(file), process.env.SVC_SIGNING_P12_PASSPHRASE ?? '').then(
    (outcome) =>
      process.stdout.write(
        outcome === 'created' ? `created a seal certificate issued by a local CA in ${file} (the CA: ${file}.ca.pem)\n` : `kept ${file}\n`,
      ),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
