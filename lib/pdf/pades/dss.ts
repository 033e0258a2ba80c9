// The Document Security Store of a certified PDF (PAdES B-LT): the certificates of every signature
// and timestamp up to their roots, and the OCSP responses and CRLs of each, as an incremental update.
// Written without per-signature /VRI entries: PAdES makes them optional, and validators such as
// pdfcpu refuse a DSS that has them.
import { PDF, PdfArray, PdfDict, PdfName, type PdfRef, PdfStream } from '@libpdf/core';
import * as pkijs from 'pkijs';
import { der, OID, readSignedData } from './cms';
import type { RevocationProvider } from './revocation';

/** What went into the DSS, and what could not be had. */
export interface DssOutcome {
  pdf: Uint8Array;
  certificates: number;
  ocsps: number;
  crls: number;
  warnings: string[];
}

/**
 * Adds the DSS for the signatures (CMS DER each) the PDF carries: their certificates and those of the
 * timestamps inside them, missing issuers fetched from caIssuers URLs, and for each certificate but
 * the roots an OCSP response, else a CRL. A certificate that names no URL gets none, and says so.
 */
export async function addDss(
  pdf: Uint8Array,
  signatures: Uint8Array[],
  options: { revocation?: RevocationProvider; timeoutMs: number },
): Promise<DssOutcome> {
  const warnings: string[] = [];
  const certificates = new Map<string, pkijs.Certificate>();
  const add = (certificate: pkijs.Certificate) => certificates.set(der(certificate).toString('hex'), certificate);
  for (const signature of signatures) for (const certificate of certificatesOf(signature)) add(certificate);
  // Complete each chain up to a self-signed root, from the certificates' caIssuers URLs when needed.
  for (let round = 0; round < 5; round += 1) {
    const missing = [...certificates.values()].filter((cert) => !isSelfIssued(cert) && !issuerOf(cert, certificates));
    if (missing.length === 0) break;
    let found = false;
    for (const cert of missing) {
      const issuer = await fetchIssuer(cert, options.timeoutMs).catch((error: Error) => {
        warnings.push(`the issuer of ${nameOf(cert)} could not be fetched: ${error.message}`);
        return undefined;
      });
      if (issuer) {
        add(issuer);
        found = true;
      } else warnings.push(`the chain of ${nameOf(cert)} is incomplete: its issuer is not in the signature and names no caIssuers URL`);
    }
    if (!found) break;
  }

  const ocsps: Uint8Array[] = [];
  const crls: Uint8Array[] = [];
  for (const cert of certificates.values()) {
    if (isSelfIssued(cert)) continue; // a root is trusted or not; no one revokes it
    const issuer = issuerOf(cert, certificates);
    const ocsp = issuer && options.revocation ? await options.revocation.getOCSP(der(cert), der(issuer)) : null;
    if (ocsp) {
      ocsps.push(ocsp);
      continue;
    }
    const crl = options.revocation ? await options.revocation.getCRL(der(cert)) : null;
    if (crl) crls.push(crl);
    else warnings.push(`no revocation data for ${nameOf(cert)} (it names no OCSP or CRL URL that answered)`);
  }

  const doc = await PDF.load(pdf);
  const streams = (items: Uint8Array[]) =>
    new PdfArray(unique(items).map((bytes): PdfRef => doc.register(new PdfStream(new PdfDict(), bytes))));
  const dss = new PdfDict([['Type', PdfName.of('DSS')]]);
  dss.set('Certs', streams([...certificates.values()].map((cert) => der(cert))));
  if (ocsps.length > 0) dss.set('OCSPs', streams(ocsps));
  if (crls.length > 0) dss.set('CRLs', streams(crls));
  doc.getCatalog().set('DSS', doc.register(dss));
  return {
    pdf: await doc.save({ incremental: true }),
    certificates: certificates.size,
    ocsps: unique(ocsps).length,
    crls: unique(crls).length,
    warnings,
  };
}

/** The certificates a CMS signature carries, and those of the timestamp tokens in its unsigned attributes. */
function certificatesOf(cms: Uint8Array): pkijs.Certificate[] {
  const signed = readSignedData(cms);
  const own = (signed.certificates ?? []).filter((cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate);
  const tokens = (signed.signerInfos[0]?.unsignedAttrs?.attributes ?? [])
    .filter((attribute) => attribute.type === OID.signatureTimeStampToken)
    .flatMap((attribute) => certificatesOf(new Uint8Array(attribute.values[0].toBER(false))));
  return [...own, ...tokens];
}

function isSelfIssued(cert: pkijs.Certificate): boolean {
  return cert.issuer.isEqual(cert.subject);
}

function issuerOf(cert: pkijs.Certificate, known: Map<string, pkijs.Certificate>): pkijs.Certificate | undefined {
  return [...known.values()].find((candidate) => candidate !== cert && candidate.subject.isEqual(cert.issuer));
}

const AIA = '1.3.6.1.5.5.7.1.1';
const CA_ISSUERS = '1.3.6.1.5.5.7.48.2';

async function fetchIssuer(cert: pkijs.Certificate, timeoutMs: number): Promise<pkijs.Certificate | undefined> {
  const aia = cert.extensions?.find((extension) => extension.extnID === AIA)?.parsedValue;
  if (!(aia instanceof pkijs.InfoAccess)) return undefined;
  const url = aia.accessDescriptions.find((access) => access.accessMethod === CA_ISSUERS && access.accessLocation.type === 6)
    ?.accessLocation.value as string | undefined;
  if (!url || !/^https?:\/\//i.test(url)) return undefined;
  const reply = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!reply.ok) throw new Error(`${url} answered HTTP ${reply.status}`);
  const bytes = new Uint8Array(await reply.arrayBuffer());
  const text = Buffer.from(bytes).toString('latin1');
  const pem = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(text);
  return pkijs.Certificate.fromBER(pem ? Buffer.from(pem[1].replace(/\s+/g, ''), 'base64') : bytes);
}

function nameOf(cert: pkijs.Certificate): string {
  const cn = cert.subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
  return cn ? `"${cn.value.valueBlock.value}"` : 'a certificate';
}

function unique(items: Uint8Array[]): Uint8Array[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = Buffer.from(item).toString('base64');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
