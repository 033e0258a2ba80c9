import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import forge from 'node-forge';
import { PdfError } from './errors';

export interface SealCertificate {
  p12: Buffer;
  passphrase: string;
}

/** The parts of a PKCS#12 file a seal needs: the key, its certificate, and the rest of the chain. */
export interface SealKey {
  privateKey: forge.pki.rsa.PrivateKey;
  certificate: forge.pki.Certificate;
  chain: forge.pki.Certificate[];
}

const SUBJECT = [
  { name: 'commonName', value: 'Document seal (self-signed)' },
  { name: 'organizationName', value: 'E-signature service' },
];
const VALIDITY_YEARS = 10;

/**
 * SVC_SIGNING_P12 (path) + passphrase when given; otherwise a self-signed RSA-2048/SHA-256 certificate
 * created ONCE and kept in <dataDir>/seal/seal.p12 with its random passphrase in <dataDir>/seal/passphrase
 * (files 0600, directory 0700); later calls load it. Two processes may call it at once: each builds the
 * directory under a temporary name and renames it into place, and the loser loads the winner's.
 */
export async function loadSealCertificate(options: { dataDir: string; p12Path?: string; passphrase?: string }): Promise<SealCertificate> {
  if (options.p12Path) {
    const p12 = await fs.readFile(options.p12Path).catch((error: Error) => {
      throw new PdfError('seal_certificate', `Cannot read the signing certificate ${options.p12Path}: ${error.message}`);
    });
    const certificate = { p12, passphrase: options.passphrase ?? '' };
    openP12(certificate);
    return certificate;
  }
  const directory = path.join(options.dataDir, 'seal');
  const stored = await readStored(directory);
  if (stored) return stored;

  await fs.mkdir(options.dataDir, { recursive: true });
  const building = await fs.mkdtemp(path.join(options.dataDir, '.seal-'));
  try {
    const created = createSelfSigned();
    await fs.writeFile(path.join(building, 'seal.p12'), created.p12, { mode: 0o600 });
    await fs.writeFile(path.join(building, 'passphrase'), created.passphrase, { mode: 0o600 });
    await fs.rename(building, directory);
    return created;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
  } finally {
    await fs.rm(building, { recursive: true, force: true });
  }
  const winner = await readStored(directory);
  if (!winner)
    throw new PdfError('seal_certificate', `${directory} exists but holds no seal.p12; remove it to create a new seal certificate.`);
  return winner;
}

async function readStored(directory: string): Promise<SealCertificate | undefined> {
  let p12: Buffer;
  try {
    p12 = await fs.readFile(path.join(directory, 'seal.p12'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const passphrase = await fs.readFile(path.join(directory, 'passphrase'), 'utf8').catch(() => {
    throw new PdfError('seal_certificate', `${directory}/seal.p12 has no passphrase file beside it.`);
  });
  return { p12, passphrase: passphrase.replace(/\r?\n$/, '') };
}

/** A new self-signed seal certificate (RSA-2048, SHA-256, 10 years) in a PKCS#12 file under `passphrase`. */
export function createSelfSigned(passphrase = crypto.randomBytes(32).toString('base64url')): SealCertificate {
  // Node generates the key natively; forge's pure-JS key generation takes seconds.
  const { privateKey: pem } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.rsa.setPublicKey(privateKey.n, privateKey.e);
  // A positive serial: the top bit of the first byte cleared.
  certificate.serialNumber = `0${crypto.randomBytes(16).toString('hex').slice(1)}`;
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + VALIDITY_YEARS * 365 * 86_400_000);
  certificate.setSubject(SUBJECT);
  certificate.setIssuer(SUBJECT);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(privateKey, [certificate], passphrase, { algorithm: 'aes256', friendlyName: 'seal' });
  return { p12: Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'), passphrase };
}

/** Opens a PKCS#12 file; a wrong passphrase or a file without a matching key and certificate is a PdfError. */
export function openP12(certificate: SealCertificate): SealKey {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(certificate.p12.toString('binary')), false, certificate.passphrase);
  } catch (error) {
    throw new PdfError(
      'seal_certificate',
      `The signing certificate cannot be opened (wrong passphrase or not a PKCS#12 file): ${(error as Error).message}`,
    );
  }
  const keyBags = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  const chain = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? []).flatMap((bag) =>
    bag.cert ? [bag.cert] : [],
  );
  const privateKey = keyBags.find((bag) => bag.key)?.key as forge.pki.rsa.PrivateKey | undefined;
  const matches = (cert: forge.pki.Certificate) => {
    const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
    return privateKey !== undefined && publicKey.n?.equals(privateKey.n) && publicKey.e?.equals(privateKey.e);
  };
  const own = chain.find(matches);
  if (!privateKey || !own) throw new PdfError('seal_certificate', 'The signing certificate holds no RSA key with a matching certificate.');
  return { privateKey, certificate: own, chain: chain.filter((cert) => cert !== own) };
}
