// Certificate paths from a signer to a trust anchor, judged at a time: each certificate signed by the
// next, valid then, CAs marked as CAs, the signer's key allowed to sign documents (or, for a timestamp
// authority, to stamp time), and no certificate revoked before that time by the OCSP responses and
// CRLs the file carries. Nothing is fetched: an anonymous verify makes no outbound call.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { t } from '../../i18n';
import { subjectOf } from '../pades/cms';
import { signedBy } from './cms';

export type Usage = 'signing' | 'timestamping';

export interface Revocation {
  ocsps: Uint8Array[];
  crls: Uint8Array[];
}

export type RevocationStatus = 'good' | 'revoked' | 'unknown' | 'not_published';

export interface ChainResult {
  /** Leaf first, the trust anchor last; only the leaf when no path was found. */
  path: pkijs.Certificate[];
  anchor?: pkijs.Certificate;
  /** ETSI sub-indication of the first failure, with its indication; undefined when the path holds. */
  failure?: { indication: 'TOTAL-FAILED' | 'INDETERMINATE'; sub: string; reason: string };
  /** The signer's revocation status (the worst of the path). */
  revocation: RevocationStatus;
  revokedAt?: Date;
  /** Every certificate of the path had its revocation status established (or publishes none). */
  revocationComplete: boolean;
}

const EKU = '2.5.29.37';
const KEY_USAGE = '2.5.29.15';
const BASIC_CONSTRAINTS = '2.5.29.19';
const TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';
// Extended key usages a document-signing certificate may carry (Acrobat's list, with RFC 9336's).
const SIGNING_EKUS = new Set(['2.5.29.37.0', '1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.36', '1.2.840.113583.1.1.5', '1.3.6.1.4.1.311.10.3.12']);
const AIA = '1.3.6.1.5.5.7.1.1';
const CRL_DP = '2.5.29.31';

/** The anchors and every certificate the file holds, each parsed once. */
export class TrustStore {
  private readonly anchorKeys: Set<string>;

  constructor(readonly anchors: pkijs.Certificate[]) {
    this.anchorKeys = new Set(anchors.map(derKey));
  }

  isAnchor(certificate: pkijs.Certificate): boolean {
    return this.anchorKeys.has(derKey(certificate));
  }

  /** A path from `leaf` to an anchor through `pool`, judged at `at` for `usage`. */
  validate(leaf: pkijs.Certificate, pool: pkijs.Certificate[], revocation: Revocation, at: Date, usage: Usage): ChainResult {
    const path = this.build(leaf, [...pool, ...this.anchors], 0, new Set());
    if (!path) {
      return {
        path: [leaf],
        failure: {
          indication: 'INDETERMINATE',
          sub: 'NO_CERTIFICATE_CHAIN_FOUND',
          reason: t('verify.chain.no_anchor', { subject: subjectOf(leaf) }),
        },
        revocation: 'unknown',
        revocationComplete: false,
      };
    }
    const result: ChainResult = { path, anchor: path.at(-1), revocation: 'not_published', revocationComplete: true };
    const fail = (indication: 'TOTAL-FAILED' | 'INDETERMINATE', sub: string, reason: string) => {
      result.failure ??= { indication, sub, reason };
    };
    for (let index = 0; index < path.length - 1; index++) {
      const certificate = path[index];
      const issuer = path[index + 1];
      const status = revocationStatus(certificate, issuer, revocation);
      if (status.status === 'revoked' && (!result.revokedAt || status.at! < result.revokedAt)) result.revokedAt = status.at;
      if (rank(status.status) > rank(result.revocation)) result.revocation = status.status;
      if (status.status === 'unknown') result.revocationComplete = false;
      if (status.status === 'revoked' && status.at! <= at)
        fail(
          'TOTAL-FAILED',
          'REVOKED',
          t('verify.chain.revoked', { subject: subjectOf(certificate), revokedAt: status.at!.toISOString(), at: at.toISOString() }),
        );
      const { notBefore, notAfter } = validity(certificate);
      if (at < notBefore)
        fail(
          index === 0 ? 'TOTAL-FAILED' : 'INDETERMINATE',
          'NOT_YET_VALID',
          t('verify.chain.not_yet_valid', { subject: subjectOf(certificate), at: at.toISOString() }),
        );
      if (at > notAfter)
        fail('INDETERMINATE', 'OUT_OF_BOUNDS_NO_POE', t('verify.chain.expired', { subject: subjectOf(certificate), at: at.toISOString() }));
      if (index > 0 && !isCa(certificate))
        fail('INDETERMINATE', 'CHAIN_CONSTRAINTS_FAILURE', t('verify.chain.issuer_not_ca', { subject: subjectOf(certificate) }));
    }
    if (path.length > 1 && !isCa(path.at(-1)!))
      fail('INDETERMINATE', 'CHAIN_CONSTRAINTS_FAILURE', t('verify.chain.anchor_not_ca', { subject: subjectOf(path.at(-1)!) }));
    const usageProblem = usage === 'signing' ? signingUsageProblem(leaf) : timestampingUsageProblem(leaf);
    if (usageProblem) fail('INDETERMINATE', 'CHAIN_CONSTRAINTS_FAILURE', usageProblem);
    return result;
  }

  private build(
    certificate: pkijs.Certificate,
    pool: pkijs.Certificate[],
    depth: number,
    seen: Set<string>,
  ): pkijs.Certificate[] | undefined {
    if (this.isAnchor(certificate)) return [certificate];
    if (depth > 8) return undefined;
    seen.add(derKey(certificate));
    for (const candidate of pool) {
      if (seen.has(derKey(candidate)) || !candidate.subject.isEqual(certificate.issuer)) continue;
      if (!signedBy(certificate.tbsView, certificate.signatureAlgorithm, certificate.signatureValue, candidate)) continue;
      const rest = this.build(candidate, pool, depth + 1, seen);
      if (rest) return [certificate, ...rest];
    }
    return undefined;
  }
}

const derKeys = new WeakMap<pkijs.Certificate, string>();

export function derKey(certificate: pkijs.Certificate): string {
  let key = derKeys.get(certificate);
  if (!key) {
    key = createHash('sha256')
      .update(Buffer.from(certificate.toSchema().toBER(false)))
      .digest('hex');
    derKeys.set(certificate, key);
  }
  return key;
}

function rank(status: RevocationStatus): number {
  return ['not_published', 'good', 'unknown', 'revoked'].indexOf(status);
}

function validity(certificate: pkijs.Certificate): { notBefore: Date; notAfter: Date } {
  return { notBefore: certificate.notBefore.value, notAfter: certificate.notAfter.value };
}

function extension(certificate: pkijs.Certificate, oid: string): pkijs.Extension | undefined {
  return certificate.extensions?.find((entry) => entry.extnID === oid);
}

function isCa(certificate: pkijs.Certificate): boolean {
  const constraints = extension(certificate, BASIC_CONSTRAINTS)?.parsedValue as pkijs.BasicConstraints | undefined;
  if (!constraints?.cA) return false;
  const usage = keyUsageBits(certificate);
  return usage === undefined || (usage & 0x04) !== 0; // keyCertSign
}

/** The first byte of keyUsage (RFC 5280 bit 0, digitalSignature, is 0x80; keyCertSign is 0x04); undefined when absent. */
function keyUsageBits(certificate: pkijs.Certificate): number | undefined {
  const value = extension(certificate, KEY_USAGE)?.parsedValue;
  if (!(value instanceof asn1js.BitString)) return undefined;
  return value.valueBlock.valueHexView[0] ?? 0;
}

function ekus(certificate: pkijs.Certificate): string[] | undefined {
  const value = extension(certificate, EKU)?.parsedValue as pkijs.ExtKeyUsage | undefined;
  return value?.keyPurposes;
}

function signingUsageProblem(certificate: pkijs.Certificate): string | undefined {
  const usage = keyUsageBits(certificate);
  // digitalSignature (0x80) or nonRepudiation (0x40) of the first byte.
  if (usage !== undefined && (usage & 0xc0) === 0) return t('verify.chain.may_not_sign', { subject: subjectOf(certificate) });
  const purposes = ekus(certificate);
  if (purposes && !purposes.some((purpose) => SIGNING_EKUS.has(purpose)))
    return t('verify.chain.may_not_sign_documents', { subject: subjectOf(certificate), purposes: purposes.join(', ') });
  return undefined;
}

function timestampingUsageProblem(certificate: pkijs.Certificate): string | undefined {
  const purposes = ekus(certificate);
  if (!purposes?.includes(TIME_STAMPING)) return t('verify.chain.not_timestamp_authority', { subject: subjectOf(certificate) });
  return undefined;
}

function publishesRevocation(certificate: pkijs.Certificate): boolean {
  return extension(certificate, AIA) !== undefined || extension(certificate, CRL_DP) !== undefined;
}

/** What the file's OCSP responses, else its CRLs, say of `certificate` (each checked to come from its issuer). */
function revocationStatus(
  certificate: pkijs.Certificate,
  issuer: pkijs.Certificate,
  data: Revocation,
): { status: RevocationStatus; at?: Date } {
  let good = false;
  for (const bytes of data.ocsps) {
    const answer = ocspStatus(bytes, certificate, issuer);
    if (answer?.status === 'revoked') return answer;
    if (answer?.status === 'good') good = true;
  }
  for (const bytes of data.crls) {
    const answer = crlStatus(bytes, certificate, issuer);
    if (answer?.status === 'revoked') return answer;
    if (answer?.status === 'good') good = true;
  }
  if (good) return { status: 'good' };
  return { status: publishesRevocation(certificate) ? 'unknown' : 'not_published' };
}

function ocspStatus(
  bytes: Uint8Array,
  certificate: pkijs.Certificate,
  issuer: pkijs.Certificate,
): { status: RevocationStatus; at?: Date } | undefined {
  try {
    let basic: pkijs.BasicOCSPResponse;
    try {
      const response = pkijs.OCSPResponse.fromBER(bytes);
      if (!response.responseBytes) return undefined;
      basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes.response.valueBlock.valueHexView);
    } catch {
      basic = pkijs.BasicOCSPResponse.fromBER(bytes);
    }
    const single = basic.tbsResponseData.responses.find((entry) => matchesCertId(entry.certID, certificate, issuer));
    if (!single) return undefined;
    const responders = [
      issuer,
      ...(basic.certs ?? []).filter((cert) => cert.issuer.isEqual(issuer.subject) && ekus(cert)?.includes(OCSP_SIGNING)),
    ];
    const responder = responders.find(
      (cert) =>
        (cert === issuer || signedBy(cert.tbsView, cert.signatureAlgorithm, cert.signatureValue, issuer)) &&
        signedBy(basic.tbsResponseData.tbsView, basic.signatureAlgorithm, basic.signature, cert),
    );
    if (!responder) return undefined;
    const status = single.certStatus;
    const tag = status?.idBlock?.tagNumber;
    if (tag === 0) return { status: 'good' };
    if (tag === 1) {
      const time = (status as asn1js.Constructed).valueBlock.value[0] as asn1js.GeneralizedTime;
      return { status: 'revoked', at: time.toDate() };
    }
    return undefined;
  } catch {
    return undefined;
  }
}

function matchesCertId(id: pkijs.CertID, certificate: pkijs.Certificate, issuer: pkijs.Certificate): boolean {
  if (!id.serialNumber.isEqual(certificate.serialNumber)) return false;
  const hash = { '1.3.14.3.2.26': 'sha1', '2.16.840.1.101.3.4.2.1': 'sha256' }[id.hashAlgorithm.algorithmId];
  if (!hash) return false;
  const name = createHash(hash)
    .update(Buffer.from(issuer.subject.toSchema().toBER(false)))
    .digest();
  const key = createHash(hash).update(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
  return (
    name.equals(Buffer.from(id.issuerNameHash.valueBlock.valueHexView)) && key.equals(Buffer.from(id.issuerKeyHash.valueBlock.valueHexView))
  );
}

function crlStatus(
  bytes: Uint8Array,
  certificate: pkijs.Certificate,
  issuer: pkijs.Certificate,
): { status: RevocationStatus; at?: Date } | undefined {
  try {
    const crl = pkijs.CertificateRevocationList.fromBER(bytes);
    if (!crl.issuer.isEqual(issuer.subject) || !signedBy(crl.tbsView, crl.signature, crl.signatureValue, issuer)) return undefined;
    const entry = crl.revokedCertificates?.find((revoked) => revoked.userCertificate.isEqual(certificate.serialNumber));
    return entry ? { status: 'revoked', at: entry.revocationDate.value } : { status: 'good' };
  } catch {
    return undefined;
  }
}
