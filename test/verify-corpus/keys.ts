// Key material of the corpus: the service's own development PKI (trusted: its CA is an anchor), and
// foreign self-signed keys nobody trusts: an impostor "Agents API seal" and a timestamp authority.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CryptoKeySigner } from '@libpdf/core';
import * as asn1js from 'asn1js';
import forge from 'node-forge';
import * as pkijs from 'pkijs';
import { der, importRsaKey, OID, parseCertificate, type SigningKey, sha256, signDigest } from '../../lib/pdf/pades/cms';
import { openSigningKey } from '../../lib/pdf/pades/pki';
import { developmentTimestampAuthority, type TimestampAuthority } from '../../lib/pdf/pades/timestamps';
import { loadDevelopmentPki } from '../../lib/pdf/seal-certificate';

export interface CorpusKeys {
  /** The development CA (PEM): the trust anchor of the service's own seals. */
  caPem: string;
  /** The development seal and the development timestamp authority, both issued by that CA. */
  seal: SigningKey;
  tsa: TimestampAuthority;
  /** A self-signed key whose certificate claims the name "Agents API seal": trusted by no one. */
  foreign: SigningKey;
  /** A self-signed timestamp authority (timeStamping EKU) trusted by no one, stamping the current time. */
  untrustedTsaKey: SigningKey;
  untrustedTsa: TimestampAuthority;
  /** Removes the development PKI's temporary data dir. */
  close(): Promise<void>;
}

const YEAR = 365 * 86_400_000;

export async function corpusKeys(): Promise<CorpusKeys> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-verify-corpus-'));
  try {
    const pki = await loadDevelopmentPki(dataDir);
    const [seal, tsaKey] = await Promise.all([openSigningKey(pki.seal), openSigningKey(pki.tsa)]);
    // Valid since before the backdated timestamps some cases claim, so only trust is missing.
    const untrustedTsaKey = await selfSignedKey({
      commonName: 'Timestamp authority',
      timeStamping: true,
      notBefore: new Date(Date.now() - 11 * YEAR),
    });
    return {
      caPem: pki.caPem,
      seal,
      tsa: developmentTimestampAuthority(tsaKey),
      foreign: await selfSignedKey({ commonName: 'Agents API seal' }),
      untrustedTsaKey,
      untrustedTsa: developmentTimestampAuthority(untrustedTsaKey),
      close: () => fs.rm(dataDir, { recursive: true, force: true }),
    };
  } catch (error) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A key and its certificate as node-forge holds them: what issues further certificates. */
export interface ForgeKey {
  key: forge.pki.rsa.PrivateKey;
  certificate: forge.pki.Certificate;
}

export interface CertifiedKey {
  /** The service's SigningKey, its chain the issuer's certificate (none when self-signed). */
  signing: SigningKey;
  forge: ForgeKey;
  pem: string;
}

/**
 * An RSA key and a certificate for it, self-signed or issued by `issuer`: a CA (`ca`), a signer
 * (keyUsage digitalSignature, nonRepudiation, or `keyUsage` as given) or, with `timeStamping`, a TSA
 * (its critical EKU), valid from `notBefore` (a minute ago) to `notAfter` (in five years).
 */
export async function certifiedKey(options: {
  commonName: string;
  issuer?: ForgeKey;
  ca?: boolean;
  timeStamping?: boolean;
  keyUsage?: Record<string, boolean>;
  notBefore?: Date;
  notAfter?: Date;
}): Promise<CertifiedKey> {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.rsa.setPublicKey(forgeKey.n, forgeKey.e);
  certificate.serialNumber = `0${crypto.randomBytes(16).toString('hex').slice(1)}`;
  certificate.validity.notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  certificate.validity.notAfter = options.notAfter ?? new Date(Date.now() + 5 * YEAR);
  // The same organization as the service's own: only the chain tells them apart.
  const subject = [
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'E-signature service' },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(options.issuer ? options.issuer.certificate.subject.attributes : subject);
  const usage = options.ca ? { keyCertSign: true, cRLSign: true } : (options.keyUsage ?? { digitalSignature: true, nonRepudiation: true });
  certificate.setExtensions([
    { name: 'basicConstraints', cA: options.ca ?? false, critical: true },
    { name: 'keyUsage', ...usage, critical: true },
    ...(options.timeStamping ? [{ name: 'extKeyUsage', timeStamping: true, critical: true }] : []),
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(options.issuer?.key ?? forgeKey, forge.md.sha256.create());
  const derOf = (cert: forge.pki.Certificate) => Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return {
    signing: {
      privateKey: await importRsaKey(pkcs8),
      certificate: parseCertificate(derOf(certificate)),
      chain: options.issuer ? [parseCertificate(derOf(options.issuer.certificate))] : [],
    },
    forge: { key: forgeKey, certificate },
    pem: forge.pki.certificateToPem(certificate),
  };
}

/**
 * A self-signed RSA certificate (keyUsage digitalSignature, nonRepudiation; with `timeStamping` the
 * critical timeStamping EKU a TSA needs) and its key, as the service's SigningKey with no chain.
 */
export async function selfSignedKey(options: { commonName: string; timeStamping?: boolean; notBefore?: Date }): Promise<SigningKey> {
  return (await certifiedKey(options)).signing;
}

/** An RFC 3161 authority over `key` whose tokens claim `genTime` whatever the clock says (a backdating TSA). */
export function timestampAuthorityAt(key: SigningKey, genTime: Date): TimestampAuthority {
  return {
    name: `timestamp authority stuck at ${genTime.toISOString()}`,
    async timestamp(digest) {
      const tstInfo = new pkijs.TSTInfo({
        version: 1,
        // The example arc (RFC 5612), as the development authority's policy.
        policy: '1.3.6.1.4.1.32473.1.1',
        messageImprint: new pkijs.MessageImprint({
          hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
          hashedMessage: new asn1js.OctetString({ valueHex: digest }),
        }),
        serialNumber: new asn1js.Integer({ value: crypto.randomInt(1, 2 ** 47) }),
        genTime,
        tsa: new pkijs.GeneralName({ type: 4, value: key.certificate.subject }),
      });
      const content = new Uint8Array(tstInfo.toSchema().toBER(false));
      const signed = await signDigest(key, { contentType: OID.tstInfo, digest: sha256(content), content });
      return new Uint8Array(new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema() }).toSchema().toBER(false));
    },
  };
}

/** libpdf's signer over a SigningKey (RSA PKCS#1 v1.5), carrying the key's chain. */
export function libpdfSigner(key: SigningKey): CryptoKeySigner {
  return new CryptoKeySigner(
    key.privateKey as unknown as ConstructorParameters<typeof CryptoKeySigner>[0],
    der(key.certificate),
    'RSA',
    'RSASSA-PKCS1-v1_5',
    key.chain.map((certificate) => der(certificate)),
  );
}
