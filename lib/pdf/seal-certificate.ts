import fs from 'node:fs/promises';
import path from 'node:path';
import { PdfError } from './errors';
import { createDevelopmentPki, type DevelopmentPki, openP12, type SealCertificate } from './pades/pki';

export { openP12, type SealCertificate, type SealKey } from './pades/pki';

/** The seal's PKCS#12 file, and the development timestamp authority's when the seal is the development one. */
export interface SealMaterial {
  seal: SealCertificate;
  /** The development PKI's TSA (its certificate issued by the development CA); absent for SVC_SIGNING_P12. */
  developmentTsa?: SealCertificate;
  /** The development CA (PEM) that issued both, to import into a validator; absent for SVC_SIGNING_P12. */
  developmentCaPem?: string;
}

/**
 * SVC_SIGNING_P12 (path) + passphrase when given; otherwise the development PKI under
 * `<dataDir>/pki/`: a CA, the seal certificate it issued and a timestamp authority certificate,
 * created ONCE (files 0600, directory 0700) and loaded after.
 */
export async function loadSealCertificate(options: { dataDir: string; p12Path?: string; passphrase?: string }): Promise<SealCertificate> {
  return (await loadSealMaterial(options)).seal;
}

export async function loadSealMaterial(options: { dataDir: string; p12Path?: string; passphrase?: string }): Promise<SealMaterial> {
  if (options.p12Path) {
    const p12 = await fs.readFile(options.p12Path).catch((error: Error) => {
      throw new PdfError('seal_certificate', `Cannot read the signing certificate ${options.p12Path}: ${error.message}`);
    });
    const seal = { p12, passphrase: options.passphrase ?? '' };
    openP12(seal);
    return { seal };
  }
  const pki = await loadDevelopmentPki(options.dataDir);
  return { seal: pki.seal, developmentTsa: pki.tsa, developmentCaPem: pki.caPem };
}

/** Where the development PKI lives (the CA certificate, to trust in a validator, is `ca.pem`). */
export function developmentPkiDirectory(dataDir: string): string {
  return path.join(dataDir, 'pki');
}

/**
 * The development PKI, made once. Two processes may call it at once: each builds the directory under
 * a temporary name and renames it into place, and the loser loads the winner's.
 */
export async function loadDevelopmentPki(dataDir: string): Promise<DevelopmentPki> {
  const directory = developmentPkiDirectory(dataDir);
  const stored = await readStored(directory);
  if (stored) return stored;

  await fs.mkdir(dataDir, { recursive: true });
  const building = await fs.mkdtemp(path.join(dataDir, '.pki-'));
  try {
    const created = createDevelopmentPki();
    await fs.writeFile(path.join(building, 'seal.p12'), created.seal.p12, { mode: 0o600 });
    await fs.writeFile(path.join(building, 'tsa.p12'), created.tsa.p12, { mode: 0o600 });
    await fs.writeFile(path.join(building, 'ca.pem'), created.caPem, { mode: 0o644 });
    await fs.writeFile(path.join(building, 'passphrase'), created.seal.passphrase, { mode: 0o600 });
    await fs.rename(building, directory);
    return created;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
  } finally {
    await fs.rm(building, { recursive: true, force: true });
  }
  const winner = await readStored(directory);
  if (!winner) throw new PdfError('seal_certificate', `${directory} exists but is incomplete; remove it to create a new development PKI.`);
  return winner;
}

async function readStored(directory: string): Promise<DevelopmentPki | undefined> {
  const read = (name: string) => fs.readFile(path.join(directory, name));
  let seal: Buffer;
  try {
    seal = await read('seal.p12');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const passphrase = (await read('passphrase')).toString('utf8').replace(/\r?\n$/, '');
    return {
      seal: { p12: seal, passphrase },
      tsa: { p12: await read('tsa.p12'), passphrase },
      caPem: (await read('ca.pem')).toString('utf8'),
    };
  } catch {
    throw new PdfError(
      'seal_certificate',
      `${directory} is incomplete (seal.p12, tsa.p12, ca.pem, passphrase); remove it to create a new one.`,
    );
  }
}
