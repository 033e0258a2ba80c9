// Revocation data for the DSS: OCSP responses and CRLs fetched at seal time from the certificates' own
// URLs (authority information access, CRL distribution points), kept until their next update. A
// certificate that names none gets none, and the gap is reported, never filled with anything made up.
import * as pkijs from 'pkijs';
import { parseCertificate } from './cms';

/** libpdf's RevocationProvider shape: DER in, DER out, null when none can be had. */
export interface RevocationProvider {
  getOCSP(cert: Uint8Array, issuer: Uint8Array): Promise<Uint8Array | null>;
  getCRL(cert: Uint8Array): Promise<Uint8Array | null>;
}

const AIA = '1.3.6.1.5.5.7.1.1';
const OCSP_METHOD = '1.3.6.1.5.5.7.48.1';
const CRL_DISTRIBUTION_POINTS = '2.5.29.31';

/** The certificate's OCSP responder URLs and CRL URLs (http only: what validators fetch). */
export function revocationUrls(certificate: pkijs.Certificate): { ocsp: string[]; crl: string[] } {
  const ocsp: string[] = [];
  const crl: string[] = [];
  for (const extension of certificate.extensions ?? []) {
    if (extension.extnID === AIA && extension.parsedValue instanceof pkijs.InfoAccess) {
      for (const access of extension.parsedValue.accessDescriptions) {
        if (access.accessMethod === OCSP_METHOD && access.accessLocation.type === 6) ocsp.push(String(access.accessLocation.value));
      }
    }
    if (extension.extnID === CRL_DISTRIBUTION_POINTS && extension.parsedValue instanceof pkijs.CRLDistributionPoints) {
      for (const point of extension.parsedValue.distributionPoints) {
        const names = Array.isArray(point.distributionPoint) ? point.distributionPoint : [];
        for (const name of names) if (name.type === 6) crl.push(String(name.value));
      }
    }
  }
  return { ocsp: ocsp.filter(isHttp), crl: crl.filter(isHttp) };
}

function isHttp(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

interface Cached {
  bytes: Uint8Array;
  until: number;
}

/**
 * Fetches OCSP (preferred) and CRLs over HTTP with a timeout; answers are cached until their
 * nextUpdate (at most a day), so a busy service asks its CA once per validity period.
 * `report` hears every gap: no URL, no answer, or an answer that is not a good status.
 */
export function httpRevocationProvider(options: { timeoutMs: number; report: (message: string) => void }): RevocationProvider {
  const cache = new Map<string, Cached>();
  const cached = (key: string) => {
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return hit.bytes;
    cache.delete(key);
    return undefined;
  };
  const fetchBytes = async (url: string, init: RequestInit) => {
    const reply = await fetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'follow' });
    if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
    return new Uint8Array(await reply.arrayBuffer());
  };
  return {
    async getOCSP(certBytes, issuerBytes) {
      const certificate = parseCertificate(certBytes);
      const { ocsp } = revocationUrls(certificate);
      const name = commonName(certificate);
      if (ocsp.length === 0) return null;
      const key = `ocsp:${Buffer.from(certificate.serialNumber.valueBlock.valueHexView).toString('hex')}:${ocsp[0]}`;
      const hit = cached(key);
      if (hit) return hit;
      try {
        const request = new pkijs.OCSPRequest();
        await request.createForCertificate(certificate, { hashAlgorithm: 'SHA-1', issuerCertificate: parseCertificate(issuerBytes) });
        const bytes = await fetchBytes(ocsp[0], {
          method: 'POST',
          headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
          body: new Uint8Array(request.toSchema(true).toBER(false)),
        });
        const response = pkijs.OCSPResponse.fromBER(bytes);
        if (response.responseStatus.valueBlock.valueDec !== 0)
          throw new Error(`responder status ${response.responseStatus.valueBlock.valueDec}`);
        const status = await response.getCertificateStatus(certificate, parseCertificate(issuerBytes));
        if (status.status !== 0)
          options.report(`the OCSP responder says ${name} is ${status.status === 1 ? 'REVOKED' : 'of unknown status'}`);
        cache.set(key, { bytes, until: Date.now() + validityOf(response) });
        return bytes;
      } catch (error) {
        options.report(`no OCSP answer for ${name} from ${ocsp[0]}: ${(error as Error).message}`);
        return null;
      }
    },
    async getCRL(certBytes) {
      const certificate = parseCertificate(certBytes);
      const { crl } = revocationUrls(certificate);
      if (crl.length === 0) return null;
      for (const url of crl) {
        const hit = cached(`crl:${url}`);
        if (hit) return hit;
        try {
          const bytes = await fetchBytes(url, { method: 'GET' });
          const list = pkijs.CertificateRevocationList.fromBER(bytes);
          const nextUpdate = list.nextUpdate?.value.getTime() ?? Date.now() + 3_600_000;
          cache.set(`crl:${url}`, { bytes, until: Math.min(nextUpdate, Date.now() + 86_400_000) });
          return bytes;
        } catch (error) {
          options.report(`no CRL for ${commonName(certificate)} from ${url}: ${(error as Error).message}`);
        }
      }
      return null;
    },
  };
}

function validityOf(response: pkijs.OCSPResponse): number {
  try {
    const content = response.responseBytes?.response.valueBlock.valueHexView;
    const next = content ? pkijs.BasicOCSPResponse.fromBER(content).tbsResponseData.responses[0]?.nextUpdate?.getTime() : undefined;
    return Math.max(60_000, Math.min((next ?? Date.now() + 3_600_000) - Date.now(), 86_400_000));
  } catch {
    return 3_600_000;
  }
}

function commonName(certificate: pkijs.Certificate): string {
  const cn = certificate.subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
  return cn ? `"${cn.value.valueBlock.value}"` : 'a certificate';
}
