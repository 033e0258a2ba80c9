// The CMS side of a PDF signature and of an RFC 3161 token, checked with pkijs for the structure and
// Node's crypto for every signature value: the digest of what is signed, the signer's certificate as
// the signature names it (and as its ESS attribute pins it), the signature, and what the signature
// carries (its timestamp token, its embedded revocation data).

import { constants, createHash, createPublicKey, createVerify, type KeyObject, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { t } from '../../i18n';
import { OID, readSignedData } from '../pades/cms';

const HASHES: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '1.3.14.3.2.26': 'sha1',
};

// Signature algorithms that name their own hash; RSA (rsaEncryption), RSA-PSS and EC keys use the digest algorithm's.
const SIGNATURE_HASHES: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};
const RSA_PSS = '1.2.840.113549.1.1.10';
const ED25519 = '1.3.101.112';
const ADBE_REVOCATION = '1.2.840.113583.1.1.8';

export function hashName(oid: string): string | undefined {
  return HASHES[oid];
}

/** The digest of the bytes a /ByteRange names, read from the one buffer (no copy of the file). */
export function digestRanges(bytes: Uint8Array, range: [number, number, number, number], hash: string): Buffer {
  const [a, b, c, d] = range;
  return createHash(hash)
    .update(bytes.subarray(a, a + b))
    .update(bytes.subarray(c, c + d))
    .digest();
}

const keys = new WeakMap<pkijs.Certificate, KeyObject>();

export function publicKeyOf(certificate: pkijs.Certificate): KeyObject {
  let key = keys.get(certificate);
  if (!key) {
    key = createPublicKey({ key: Buffer.from(certificate.subjectPublicKeyInfo.toSchema().toBER(false)), format: 'der', type: 'spki' });
    keys.set(certificate, key);
  }
  return key;
}

/** Whether `signature` over `data` verifies with `key` under the algorithm `algorithm` (OID) and digest `hash`. */
export function verifyValue(key: KeyObject, algorithm: string, hash: string | undefined, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (algorithm === ED25519 || key.asymmetricKeyType === 'ed25519') return verify(null, data, key, signature);
    const digest = SIGNATURE_HASHES[algorithm] ?? hash;
    if (!digest) return false;
    if (algorithm === RSA_PSS)
      return verify(digest, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    return verify(digest, data, key, signature);
  } catch {
    return false;
  }
}

/** An X.509 object (certificate, CRL, OCSP response) signed by `issuer`. */
export function signedBy(
  tbs: Uint8Array,
  algorithm: pkijs.AlgorithmIdentifier,
  signature: asn1js.BitString,
  issuer: pkijs.Certificate,
): boolean {
  return verifyValue(publicKeyOf(issuer), algorithm.algorithmId, undefined, tbs, new Uint8Array(signature.valueBlock.valueHexView));
}

export interface SignerCheck {
  /** Why the structure is not one this verifier can judge (FORMAT_FAILURE). */
  format?: string;
  signer?: pkijs.Certificate;
  certificates: pkijs.Certificate[];
  /** The message digest attribute (or the data, without signed attributes) matches. */
  digestOk: boolean;
  signatureOk: boolean;
  /** The ESS signing-certificate attribute: absent, or whether it names the signer's certificate. */
  ess?: boolean;
  hash?: string;
  signedData?: pkijs.SignedData;
}

/**
 * Checks a SignedData's one signer over `content`: `digest(hash)` answers the digest of what is signed
 * (a detached signature's byte ranges, or a token's TSTInfo), `update` streams it for a signature
 * without signed attributes.
 */
export function checkSigner(
  der: Uint8Array,
  content: { digest: (hash: string) => Buffer; stream?: (verifier: ReturnType<typeof createVerify>) => void },
): SignerCheck {
  const result: SignerCheck = { certificates: [], digestOk: false, signatureOk: false };
  let signed: pkijs.SignedData;
  try {
    signed = readSignedData(der);
  } catch (error) {
    return { ...result, format: t('verify.cms.unreadable', { message: (error as Error).message }) };
  }
  result.signedData = signed;
  result.certificates = (signed.certificates ?? []).filter((cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate);
  if (signed.signerInfos.length !== 1) return { ...result, format: t('verify.cms.signers', { count: signed.signerInfos.length }) };
  const info = signed.signerInfos[0];
  const hash = hashName(info.digestAlgorithm.algorithmId);
  if (!hash) return { ...result, format: t('verify.cms.digest_algorithm', { algorithm: info.digestAlgorithm.algorithmId }) };
  result.hash = hash;
  result.signer = findSigner(info.sid, result.certificates);
  if (!result.signer) return result;
  const key = publicKeyOf(result.signer);
  const signature = new Uint8Array(info.signature.valueBlock.valueHexView);
  const algorithm = info.signatureAlgorithm.algorithmId;
  const attributes = info.signedAttrs;
  if (attributes) {
    const digest = attributes.attributes.find((attribute) => attribute.type === OID.messageDigest)?.values[0];
    result.digestOk = digest instanceof asn1js.OctetString && Buffer.from(digest.valueBlock.valueHexView).equals(content.digest(hash));
    const encoded = Buffer.from(attributes.encodedValue.byteLength ? attributes.encodedValue : attributes.toSchema().toBER(false));
    encoded[0] = 0x31; // [0] IMPLICIT in the SignerInfo, a SET OF when signed (RFC 5652 5.4)
    result.signatureOk = verifyValue(key, algorithm, hash, encoded, signature);
    result.ess = essMatches(attributes, result.signer);
  } else if (content.stream && key.asymmetricKeyType === 'rsa' && algorithm !== RSA_PSS) {
    const verifier = createVerify(hash);
    content.stream(verifier);
    result.digestOk = verifier.verify(key, signature);
    result.signatureOk = result.digestOk;
  } else return { ...result, format: t('verify.cms.no_signed_attributes') };
  return result;
}

function findSigner(sid: pkijs.SignerInfo['sid'], certificates: pkijs.Certificate[]): pkijs.Certificate | undefined {
  if (sid instanceof pkijs.IssuerAndSerialNumber)
    return certificates.find((cert) => cert.serialNumber.isEqual(sid.serialNumber) && cert.issuer.isEqual(sid.issuer));
  const hex = (sid as { valueBlock?: { valueHexView?: Uint8Array } } | undefined)?.valueBlock?.valueHexView;
  if (hex) {
    const id = Buffer.from(hex);
    return certificates.find((cert) => {
      const ski = cert.extensions?.find((extension) => extension.extnID === '2.5.29.14')?.parsedValue;
      return ski instanceof asn1js.OctetString && Buffer.from(ski.valueBlock.valueHexView).equals(id);
    });
  }
  return undefined;
}

/** ESS signing-certificate(-v2): undefined when absent; else whether its first certificate hash is the signer's. */
function essMatches(attributes: pkijs.SignedAndUnsignedAttributes, signer: pkijs.Certificate): boolean | undefined {
  const v2 = attributes.attributes.find((attribute) => attribute.type === OID.signingCertificateV2);
  const v1 = attributes.attributes.find((attribute) => attribute.type === OID.signingCertificate);
  const attribute = v2 ?? v1;
  if (!attribute) return undefined;
  try {
    const certs = (attribute.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
    const first = certs.valueBlock.value[0] as asn1js.Sequence;
    const parts = first.valueBlock.value;
    let hash = v2 ? 'sha256' : 'sha1';
    let index = 0;
    if (v2 && parts[0] instanceof asn1js.Sequence) {
      hash = hashName(new pkijs.AlgorithmIdentifier({ schema: parts[0] }).algorithmId) ?? 'unknown';
      index = 1;
    }
    const expected = Buffer.from((parts[index] as asn1js.OctetString).valueBlock.valueHexView);
    return createHash(hash)
      .update(Buffer.from(signer.toSchema().toBER(false)))
      .digest()
      .equals(expected);
  } catch {
    return false;
  }
}

export function signatureValueOf(signed: pkijs.SignedData): Uint8Array {
  return new Uint8Array(signed.signerInfos[0].signature.valueBlock.valueHexView);
}

/** The signature-time-stamp token in the signer's unsigned attributes (DER), if any. */
export function signatureTimestampOf(signed: pkijs.SignedData): Uint8Array | undefined {
  const attribute = signed.signerInfos[0]?.unsignedAttrs?.attributes.find((entry) => entry.type === OID.signatureTimeStampToken);
  return attribute ? new Uint8Array(attribute.values[0].toBER(false)) : undefined;
}

/** Revocation data a signature carries: CMS CRLs, and Adobe's revocation-information archive (CRLs and OCSP responses). */
export function embeddedRevocation(signed: pkijs.SignedData): { crls: Uint8Array[]; ocsps: Uint8Array[] } {
  const crls: Uint8Array[] = [];
  const ocsps: Uint8Array[] = [];
  for (const crl of signed.crls ?? [])
    if (crl instanceof pkijs.CertificateRevocationList) crls.push(new Uint8Array(crl.toSchema().toBER(false)));
  const archive = signed.signerInfos[0]?.signedAttrs?.attributes.find((attribute) => attribute.type === ADBE_REVOCATION)?.values[0];
  if (archive instanceof asn1js.Sequence) {
    for (const item of archive.valueBlock.value) {
      if (!(item instanceof asn1js.Constructed)) continue;
      const tag = item.idBlock.tagNumber;
      const list = item.valueBlock.value[0];
      if (!(list instanceof asn1js.Sequence)) continue;
      for (const entry of list.valueBlock.value) (tag === 0 ? crls : ocsps).push(new Uint8Array(entry.toBER(false)));
    }
  }
  return { crls, ocsps };
}

export interface TokenCheck extends SignerCheck {
  time?: Date;
  /** The token's imprint equals the digest of what it stamps. */
  imprintOk: boolean;
}

/** An RFC 3161 token over `stamped(hash)` (the digest of what it stamps, under the token's hash). */
export function checkToken(der: Uint8Array, stamped: (hash: string) => Buffer | undefined): TokenCheck {
  let tstBytes: Uint8Array;
  let tstInfo: pkijs.TSTInfo;
  try {
    const encapsulated = readSignedData(der).encapContentInfo;
    if (encapsulated.eContentType !== OID.tstInfo || !encapsulated.eContent)
      return { certificates: [], digestOk: false, signatureOk: false, imprintOk: false, format: t('verify.token.no_tstinfo') };
    tstBytes = new Uint8Array(encapsulated.eContent.getValue());
    tstInfo = pkijs.TSTInfo.fromBER(tstBytes);
  } catch (error) {
    return {
      certificates: [],
      digestOk: false,
      signatureOk: false,
      imprintOk: false,
      format: t('verify.token.unreadable', { message: (error as Error).message }),
    };
  }
  const checked = checkSigner(der, { digest: (hash) => createHash(hash).update(tstBytes).digest() });
  const hash = hashName(tstInfo.messageImprint.hashAlgorithm.algorithmId);
  const expected = hash ? stamped(hash) : undefined;
  const imprint = Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView);
  return { ...checked, time: tstInfo.genTime, imprintOk: expected !== undefined && imprint.equals(expected) };
}
