// CMS for PAdES baseline signatures, built with pkijs (no hand-written DER): a SignedData over a
// detached digest whose signed attributes are content type, message digest and the ESS
// signing-certificate-v2 (no signing-time: the time comes from the RFC 3161 timestamp), and whose
// unsigned attributes carry that signature timestamp token.
import { createHash, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as pkijs.CryptoEngineParameters['crypto'] }));

type CryptoKey = webcrypto.CryptoKey;

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/** A private key able to sign (WebCrypto), its certificate and the rest of its chain. */
export interface SigningKey {
  privateKey: CryptoKey;
  certificate: pkijs.Certificate;
  chain: pkijs.Certificate[];
}

export function sha256(bytes: Uint8Array | ArrayBuffer): Buffer {
  return createHash('sha256')
    .update(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes)
    .digest();
}

export function der(schema: { toSchema(): { toBER(sizeOnly?: boolean): ArrayBuffer } }): Buffer {
  return Buffer.from(schema.toSchema().toBER(false));
}

export function parseCertificate(bytes: Uint8Array): pkijs.Certificate {
  return pkijs.Certificate.fromBER(bytes);
}

/** An RSA private key (PKCS#8 DER) as a WebCrypto key that signs RSASSA-PKCS1-v1_5 with SHA-256. */
export function importRsaKey(pkcs8: Uint8Array): Promise<CryptoKey> {
  return webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
}

/**
 * ESS signing-certificate-v2 (RFC 5035): the SHA-256 of the signing certificate and its issuer and
 * serial, so the certificate cannot be swapped under the signature (CAdES-BES, PAdES B-B).
 */
export function signingCertificateV2(certificate: pkijs.Certificate): pkijs.Attribute {
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }),
    serialNumber: certificate.serialNumber,
  });
  // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT sha256 (omitted), certHash, issuerSerial }
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: sha256(der(certificate)) }), issuerSerial.toSchema()],
  });
  return new pkijs.Attribute({
    type: OID.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/**
 * A SignedData signed by `key` over `digest` (the SHA-256 of the content), with the content type
 * given; `content` is encapsulated when present (a timestamp's TSTInfo), else it stays detached.
 */
export async function signDigest(
  key: SigningKey,
  options: { contentType: string; digest: Uint8Array; content?: Uint8Array },
): Promise<pkijs.SignedData> {
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: key.certificate.issuer, serialNumber: key.certificate.serialNumber }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: [
        new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: options.contentType })] }),
        new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: options.digest })] }),
        signingCertificateV2(key.certificate),
      ],
    }),
  });
  const signed = new pkijs.SignedData({
    // RFC 5652 5.1: version 1 for id-data content, 3 for any other (a timestamp's TSTInfo).
    version: options.contentType === OID.data ? 1 : 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: options.contentType,
      ...(options.content ? { eContent: new asn1js.OctetString({ valueHex: options.content }) } : {}),
    }),
    certificates: [key.certificate, ...key.chain],
    signerInfos: [signerInfo],
  });
  await signed.sign(key.privateKey as Parameters<pkijs.SignedData['sign']>[0], 0, 'SHA-256');
  return signed;
}

/** The DER ContentInfo that wraps a SignedData (what a PDF's /Contents and a timestamp token hold). */
export function contentInfo(signed: pkijs.SignedData): Buffer {
  return der(new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema() }));
}

/** The SignedData inside a DER ContentInfo. */
export function readSignedData(bytes: Uint8Array): pkijs.SignedData {
  const info = pkijs.ContentInfo.fromBER(bytes);
  if (info.contentType !== OID.signedData) throw new Error(`not a CMS SignedData (content type ${info.contentType})`);
  return new pkijs.SignedData({ schema: info.content });
}

/** Adds an RFC 3161 token over the signature value as the signer's signature-time-stamp (unsigned attribute). */
export function addSignatureTimestamp(signed: pkijs.SignedData, token: Uint8Array): void {
  const parsed = asn1js.fromBER(token);
  if (parsed.offset === -1) throw new Error('the timestamp token is not DER');
  const signerInfo = signed.signerInfos[0];
  signerInfo.unsignedAttrs ??= new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: [] });
  signerInfo.unsignedAttrs.attributes.push(new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [parsed.result] }));
}

/** The signer's signature value: what a signature timestamp's imprint is the hash of. */
export function signatureValue(signed: pkijs.SignedData): Uint8Array {
  return new Uint8Array(signed.signerInfos[0].signature.valueBlock.valueHexView);
}

/** "CN=…, O=…" of a certificate's subject, as messages and reports name it. */
export function subjectOf(certificate: pkijs.Certificate): string {
  return certificate.subject.typesAndValues
    .map((entry) => `${SHORT_NAMES[entry.type] ?? entry.type}=${entry.value.valueBlock.value}`)
    .join(', ');
}

const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
};
