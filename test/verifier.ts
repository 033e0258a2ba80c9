// The service's verifier (lib/pdf/verify) run in the test's own process, for tests of sealed PDFs: its
// report with the trust anchors a test names, and each signature's RFC 3161 token for openssl to check.
import * as pkijs from 'pkijs';
import { readSignedData } from '../lib/pdf/pades/cms';
import { pemCertificates } from '../lib/pdf/verify/anchors';
import { signatureTimestampOf } from '../lib/pdf/verify/cms';
import type { VerificationReport } from '../lib/pdf/verify/report';
import { findSignatures, type SignatureKind } from '../lib/pdf/verify/signatures';
import { verifyPdfBytes } from '../lib/pdf/verify/verify';
import { PdfFile } from '../lib/pdf/verify/xref';

export { pemCertificates };

/** The verifier's report on `pdf`, trusting the certificates of these PEM bundles. */
export function verifyOffline(pdf: Uint8Array, anchorsPem: string[] = [], now?: Date): VerificationReport {
  return verifyPdfBytes(pdf, { anchors: anchorsPem.flatMap(pemCertificates), decodeLimit: 64 << 20, now });
}

export interface SignatureToken {
  kind: SignatureKind;
  byteRange: [number, number, number, number];
  /** Its CMS (DER), as /Contents holds it without the padding. */
  contents: Buffer;
  /** The RFC 3161 token: the signature timestamp, or the document timestamp itself. */
  token?: Buffer;
  /** What the token's imprint says it stamps. */
  imprint?: Buffer;
}

/** Every signature the document's form holds, with its timestamp token. */
export function signatureTokens(pdf: Uint8Array): SignatureToken[] {
  const file = new PdfFile(pdf, 64 << 20);
  const revisions = file.revisionEnds();
  const state = file.state(revisions.at(-1)!);
  return findSignatures(file, state, revisions)
    .filter((signature) => signature.reachable && signature.contents && signature.byteRange)
    .map((signature) => {
      const token = signature.kind === 'timestamp' ? signature.contents : signatureTimestampOf(readSignedData(signature.contents!));
      const contents = Buffer.from(signature.contents!);
      if (!token) return { kind: signature.kind, byteRange: signature.byteRange!, contents };
      const tstInfo = pkijs.TSTInfo.fromBER(readSignedData(token).encapContentInfo.eContent!.getValue());
      return {
        kind: signature.kind,
        byteRange: signature.byteRange!,
        contents,
        token: Buffer.from(token),
        imprint: Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView),
      };
    });
}
