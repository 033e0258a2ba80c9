// `node --import tsx runtime/seal-cert.ts <file>`: writes a self-signed seal certificate (PKCS#12,
// passphrase SVC_SIGNING_P12_PASSPHRASE) to <file> unless one is there, for SVC_SIGNING_P12. A
// deployment runs it once (docker-compose.yml's seal-cert service) and gives every process the file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createSelfSigned, loadSealCertificate } from '../lib/pdf/seal-certificate';

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
  await fs.writeFile(temporary, createSelfSigned(passphrase).p12, { mode: 0o600 });
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
    (outcome) => process.stdout.write(`${outcome === 'created' ? 'created a self-signed seal certificate in' : 'kept'} ${file}\n`),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
