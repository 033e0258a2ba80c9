// Certificates the service makes for itself: the development CA under the data dir, which issues the
// development seal certificate and the development timestamp authority's certificate (so validators
// can build their chains once the CA is trusted), and the local CA `runtime/seal-cert.ts` uses for a
// deployment without a purchased certificate. Built with node-forge; keys made by Node's crypto.
import crypto from 'node:crypto';
import forge from 'node-forge';
import { PdfError } from '../errors';
import { importRsaKey, parseCertificate, type SigningKey } from './cms';

/** A PKCS#12 file and its passphrase: the seal certificate (SVC_SIGNING_P12) or a development one. */
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

const ORGANIZATION = 'E-signature service';
const CA_YEARS = 20;
const LEAF_YEARS = 10;

interface Issued {
  key: forge.pki.rsa.PrivateKey;
  certificate: forge.pki.Certificate;
}

function rsaKey(): forge.pki.rsa.PrivateKey {
  // Node generates the key natively; forge's pure-JS key generation takes seconds.
  const { privateKey } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
}

function issue(options: { commonName: string; years: number; issuer?: Issued; extensions: Array<Record<string, unknown>> }): Issued {
  const key = rsaKey();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.rsa.setPublicKey(key.n, key.e);
  // A positive serial: the top bit of the first byte cleared.
  certificate.serialNumber = `0${crypto.randomBytes(16).toString('hex').slice(1)}`;
  certificate.validity.notBefore = new Date(Date.now() - 60_000);
  certificate.validity.notAfter = new Date(Date.now() + options.years * 365 * 86_400_000);
  const subject = [
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: ORGANIZATION },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(options.issuer ? options.issuer.certificate.subject.attributes : subject);
  const authority = options.issuer ?? { certificate };
  certificate.setExtensions([
    ...options.extensions,
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: authority.certificate.generateSubjectKeyIdentifier().getBytes() },
  ]);
  certificate.sign(options.issuer?.key ?? key, forge.md.sha256.create());
  return { key, certificate };
}

/** A CA that only issues certificates (and CRLs), for the development PKI or a local deployment. */
export function createCa(commonName: string): Issued {
  return issue({
    commonName,
    years: CA_YEARS,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
}

/** A seal certificate issued by `ca`: signs documents (digitalSignature, nonRepudiation), is no CA. */
export function issueSealCertificate(ca: Issued, commonName: string): Issued {
  return issue({
    commonName,
    years: LEAF_YEARS,
    issuer: ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    ],
  });
}

/** A timestamp authority's certificate issued by `ca`: RFC 3161 requires the critical timeStamping EKU. */
export function issueTsaCertificate(ca: Issued, commonName: string): Issued {
  return issue({
    commonName,
    years: LEAF_YEARS,
    issuer: ca,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
      { name: 'extKeyUsage', timeStamping: true, critical: true },
    ],
  });
}

/** A PKCS#12 file of a key, its certificate and the issuing chain, under `passphrase`. */
export function toP12(issued: Issued, chain: forge.pki.Certificate[], passphrase: string, friendlyName: string): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(issued.key, [issued.certificate, ...chain], passphrase, { algorithm: 'aes256', friendlyName });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

export function certificatePem(certificate: forge.pki.Certificate): string {
  return forge.pki.certificateToPem(certificate);
}

/** The development PKI: a CA, the seal certificate and the timestamp authority it issued, each as PKCS#12. */
export interface DevelopmentPki {
  caPem: string;
  seal: SealCertificate;
  tsa: SealCertificate;
}

export function createDevelopmentPki(passphrase = crypto.randomBytes(32).toString('base64url')): DevelopmentPki {
  const ca = createCa(`${ORGANIZATION} development CA`);
  const seal = issueSealCertificate(ca, 'Document seal (development)');
  const tsa = issueTsaCertificate(ca, 'Timestamp authority (development)');
  return {
    caPem: certificatePem(ca.certificate),
    seal: { p12: toP12(seal, [ca.certificate], passphrase, 'seal'), passphrase },
    tsa: { p12: toP12(tsa, [ca.certificate], passphrase, 'tsa'), passphrase },
  };
}

/** A deployment's own seal: a local CA and a seal certificate it issued, in one PKCS#12 (runtime/seal-cert.ts). */
export function createLocalSeal(passphrase: string): SealCertificate & { caPem: string } {
  const ca = createCa(`${ORGANIZATION} local CA`);
  const seal = issueSealCertificate(ca, 'Document seal');
  return { p12: toP12(seal, [ca.certificate], passphrase, 'seal'), passphrase, caPem: certificatePem(ca.certificate) };
}

/** Opens a PKCS#12 file as a WebCrypto signing key with its certificate and chain (RSA keys only). */
export async function openSigningKey(certificate: SealCertificate): Promise<SigningKey> {
  const opened = openP12(certificate);
  const pkcs8 = forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(opened.privateKey))).getBytes();
  const certDer = (cert: forge.pki.Certificate) => Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  try {
    return {
      privateKey: await importRsaKey(Buffer.from(pkcs8, 'binary')),
      certificate: parseCertificate(certDer(opened.certificate)),
      chain: opened.chain.map((cert) => parseCertificate(certDer(cert))),
    };
  } catch (error) {
    throw new PdfError('seal_certificate', `The signing key cannot be used: ${(error as Error).message}`);
  }
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
