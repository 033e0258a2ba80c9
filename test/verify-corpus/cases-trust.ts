// The service's own seals, unchanged, and seals whose only fault is trust: a foreign self-signed key,
// an untrusted timestamp authority, a revoked seal certificate. No byte of these files was altered.
import fs from 'node:fs/promises';
import { PDF } from '@libpdf/core';
import { openSigningKey } from '../../lib/pdf/pades/pki';
import { httpRevocationProvider } from '../../lib/pdf/pades/revocation';
import { httpTimestampAuthority } from '../../lib/pdf/pades/timestamps';
import { createSealer } from '../../lib/pdf/seal';
import { ndaPdf } from './documents';
import { timestampAuthorityAt } from './keys';
import { type CorpusKit, type CorpusPdf, corpusPdf, described, expectation, SAID, SEAL_INFO } from './kit';

/** The NDA sealed by the service (approval, PAdES B-T, development seal and TSA): shared by the attacks on it. */
export function ownApprovalPdf(kit: CorpusKit): Promise<Uint8Array> {
  return kit.once('own-approval', async () => kit.sealer.seal(await ndaPdf(), SEAL_INFO));
}

/** The NDA certified by the service (DocMDP P=1, DSS, document timestamp): shared by the attacks on it. */
export function ownCertifiedPdf(kit: CorpusKit): Promise<Uint8Array> {
  return kit.once('own-certified', async () => (await kit.sealer.certify(await ndaPdf(), SEAL_INFO)).pdf);
}

export async function ownApproval(kit: CorpusKit): Promise<CorpusPdf> {
  return corpusPdf(
    'own-approval',
    described('The sample NDA sealed by createSealer(dev seal, {tsa: dev TSA}).seal(): one approval signature (B-T) over the whole file.', {
      pdfsig: `1 signature, ${SAID.ownValid}, 'Total document signed'.`,
      pdfcpu: `${SAID.revocationUnknown}.`,
    }),
    await ownApprovalPdf(kit),
    expectation('valid', ['approval', 'TOTAL-PASSED']),
  );
}

export async function ownCertified(kit: CorpusKit): Promise<CorpusPdf> {
  return corpusPdf(
    'own-certified',
    described(
      'The sample NDA certified by createSealer(dev seal, {tsa: dev TSA}).certify(): DocMDP P=1, a DSS update, a document timestamp update.',
      {
        pdfsig: `2 signatures; #1 ${SAID.ownValid}, 'Not total document signed'; #2 (ETSI.RFC3161) ${SAID.timestampUnverified}`,
        pdfcpu: `document timestamp and certified signature both ${SAID.revocationUnknown}; the timestamp 'DocModified: false'.`,
      },
    ),
    await ownCertifiedPdf(kit),
    expectation('valid', ['certification', 'TOTAL-PASSED'], ['timestamp', 'TOTAL-PASSED']),
  );
}

export async function foreignSelfSigned(kit: CorpusKit): Promise<CorpusPdf> {
  // No timestamp: the only fault is the signer's certificate, which no anchor issued.
  const pdf = await createSealer(kit.keys.foreign).seal(await ndaPdf(), SEAL_INFO);
  return corpusPdf(
    'foreign-self-signed',
    described(
      'The sample NDA sealed by the service code (createSealer().seal()) with a fresh self-signed key whose certificate says ' +
        '"CN=Agents API seal, O=E-signature service" (no TSA: B-B, so trust is the only fault).',
      {
        pdfsig: "1 signature 'Agents API seal', 'Signature is Valid.', 'Certificate issuer is unknown.', 'Total document signed'.",
        pdfcpu:
          "'validity of the signature is unknown' (signer's certificate path was not resolved using the configured local certificate store).",
      },
    ),
    pdf,
    expectation('indeterminate', ['approval', 'INDETERMINATE', 'NO_CERTIFICATE_CHAIN_FOUND']),
  );
}

/** Ten years before the corpus is built: the time the untrusted authority claims. */
export function tenYearsAgo(): Date {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() - 10);
  return date;
}

export async function untrustedSignatureTimestamp(kit: CorpusKit): Promise<CorpusPdf> {
  const backdating = timestampAuthorityAt(kit.keys.untrustedTsaKey, tenYearsAgo());
  const pdf = await createSealer(kit.keys.seal, { tsa: backdating }).seal(await ndaPdf(), SEAL_INFO);
  return corpusPdf(
    'untrusted-signature-timestamp',
    described(
      'The sample NDA sealed by the trusted dev seal, but its signature timestamp comes from a self-signed TSA (timeStamping EKU) claiming a time ' +
        'ten years ago: it proves no time, so the signature is judged at the current time.',
      {
        pdfsig: `1 signature, ${SAID.ownValid}, 'Total document signed' (the timestamp is not looked at).`,
        pdfcpu: `${SAID.revocationUnknown}; 'pkcs7: embedded timestamp token observed but not fully authenticated'.`,
      },
    ),
    pdf,
    expectation('indeterminate', {
      kind: 'approval',
      indication: 'TOTAL-PASSED',
      timestamp: { indication: 'INDETERMINATE', subIndication: 'NO_CERTIFICATE_CHAIN_FOUND' },
    }),
  );
}

export async function untrustedDocumentTimestamp(kit: CorpusKit): Promise<CorpusPdf> {
  const stamped = await (await PDF.load(await ownApprovalPdf(kit))).addTimestamp({
    timestampAuthority: kit.keys.untrustedTsa,
    longTermValidation: false,
    estimatedSize: 8 * 1024,
    fieldName: 'Archive timestamp',
  });
  return corpusPdf(
    'untrusted-document-timestamp',
    described('own-approval + a document timestamp (ETSI.RFC3161) added incrementally by libpdf addTimestamp() with a self-signed TSA.', {
      pdfsig: `2 signatures; #1 ${SAID.ownValid}, 'Not total document signed'; #2 'Timestamp authority' ${SAID.timestampUnverified}`,
      pdfcpu:
        "document timestamp 'validity of the signature is unknown' (signer's certificate path was not resolved using the configured local " +
        `certificate store); approval ${SAID.revocationUnknown}.`,
    }),
    stamped.bytes,
    expectation('indeterminate', ['approval', 'TOTAL-PASSED'], ['timestamp', 'INDETERMINATE', 'NO_CERTIFICATE_CHAIN_FOUND']),
  );
}

/**
 * The NDA certified by a test PKI's seal (openssl CA on loopback, OCSP, CRL, RFC 3161 TSA): its DSS
 * holds the OCSP answers the responders gave. With `revoked`, the seal is revoked first.
 */
async function testPkiCertifiedPdf(kit: CorpusKit, revoked: boolean): Promise<Uint8Array> {
  const pki = await kit.startTestPki();
  if (revoked) {
    await pki.revoke('seal');
    // OCSP revocation times have one-second resolution: the signature timestamp comes strictly later.
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  const key = await openSigningKey({ p12: await fs.readFile(pki.sealP12Path), passphrase: pki.sealPassphrase });
  const told: string[] = [];
  const sealer = createSealer(key, {
    tsa: httpTimestampAuthority({ url: pki.tsaUrl, timeoutMs: 10_000 }),
    revocation: httpRevocationProvider({ timeoutMs: 10_000, report: (message) => told.push(message) }),
  });
  const { pdf, warnings } = await sealer.certify(await ndaPdf(), SEAL_INFO);
  const saysRevoked = told.some((message) => /Svc Test Document Seal.*REVOKED/.test(message));
  if (saysRevoked !== revoked) throw new Error(`the OCSP responder did not answer as the case needs: ${told.join('; ')}`);
  if (warnings.length > 0 && !revoked) throw new Error(`the test PKI's certification is missing validation data: ${warnings.join('; ')}`);
  return pdf;
}

export async function testPkiCertified(kit: CorpusKit): Promise<CorpusPdf> {
  return corpusPdf(
    'testpki-certified',
    described(
      "The sample NDA certified by createSealer() over the test PKI's seal (openssl root → issuing CA → seal; its RFC 3161 TSA; " +
        "httpRevocationProvider: the DSS holds the OCSP answers 'good').",
      {
        pdfsig: `2 signatures; #1 'Svc Test Document Seal' ${SAID.ownValid}, 'Not total document signed'; #2 ${SAID.timestampUnverified}`,
        pdfcpu:
          "(OCSP) document timestamp 'signature is valid' (document has not been modified); certified signature 'signature is valid'.",
      },
    ),
    await testPkiCertifiedPdf(kit, false),
    expectation('valid', ['certification', 'TOTAL-PASSED'], ['timestamp', 'TOTAL-PASSED']),
  );
}

export async function revokedSeal(kit: CorpusKit): Promise<CorpusPdf> {
  return corpusPdf(
    'revoked-seal',
    described(
      "A second test PKI's seal certificate revoked (keyCompromise), then the sample NDA certified with it as in testpki-certified: the DSS " +
        'holds the OCSP answer REVOKED, whose revocation time precedes the signature timestamp.',
      {
        pdfsig: `the same as for testpki-certified: 2 signatures, #1 ${SAID.ownValid} (pdfsig reads no DSS and asks no responder).`,
        pdfcpu:
          "(OCSP) certified signature 'validity of the signature is unknown' (signer's certificate has been revoked); document timestamp " +
          "'signature is valid'.",
      },
    ),
    await testPkiCertifiedPdf(kit, true),
    expectation('invalid', ['certification', 'TOTAL-FAILED', 'REVOKED'], ['timestamp', 'TOTAL-PASSED']),
  );
}
