// Reads the signatures a PDF carries and checks each cryptographically: the signed byte ranges, the CMS
// signature over them, its signature timestamp, and document timestamps. Used by the verifier and
// the tests; it trusts nothing in the file it has not checked.
import * as asn1js from 'asn1js';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import type * as pkijs from 'pkijs';
import { PdfError } from '../errors';
import { OID, readSignedData, sha256, signatureValue } from './cms';
import { readTimestampToken, subjectOf, type TimestampInfo } from './timestamps';

export type SignatureKind = 'approval' | 'certification' | 'timestamp';

/** A timestamp token, checked: its authority's signature, and that its imprint is the hash of what it stamps. */
export type CheckedTimestamp = TimestampInfo & { valid: boolean; token: Buffer };

export interface SignatureCheck {
  kind: SignatureKind;
  subfilter: string;
  /** Where the signature's dictionary claims it was signed (/M); a timestamp's time is `timestamp.time`. */
  claimedTime?: Date;
  /** The signer's certificate subject (for a document timestamp, the authority's). */
  signer?: string;
  byteRange: [number, number, number, number];
  /** The byte ranges reach the end of the file: nothing was added after this signature. */
  coversWholeDocument: boolean;
  /** The signature over its byte ranges verifies (and its message digest matches them). */
  valid: boolean;
  /** Why it is not valid, when it is not. */
  problem?: string;
  /** The RFC 3161 timestamp: the signature's own, or the document timestamp itself (`token`: its DER). */
  timestamp?: CheckedTimestamp;
  /** For a certification signature: the DocMDP permission (1: no change). */
  docMdp?: number;
}

/** Every signature dictionary of the file (with a /ByteRange and /Contents), in file order, checked. */
export async function inspectSignatures(pdf: Uint8Array): Promise<SignatureCheck[]> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true, throwOnInvalidObject: false }).catch(() => {
    throw new PdfError('invalid_pdf', 'The file is not a readable PDF.');
  });
  const pages = (() => {
    try {
      return doc.getPageCount();
    } catch {
      return 0; // no catalog, or no page tree
    }
  })();
  if (pages === 0) throw new PdfError('invalid_pdf', 'The file is not a readable PDF: it has no pages.');
  const found: Array<{ dict: PDFDict; byteRange: [number, number, number, number] }> = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    const range = object.lookupMaybe(PDFName.of('ByteRange'), PDFArray);
    if (range?.size() !== 4 || !object.has(PDFName.of('Contents'))) continue;
    const numbers = range.asArray().map((value) => (value instanceof PDFNumber ? value.asNumber() : Number.NaN));
    if (numbers.some((value) => !Number.isInteger(value) || value < 0)) continue;
    found.push({ dict: object, byteRange: numbers as [number, number, number, number] });
  }
  found.sort((a, b) => a.byteRange[2] - b.byteRange[2]);
  return Promise.all(found.map(({ dict, byteRange }) => check(pdf, dict, byteRange)));
}

async function check(pdf: Uint8Array, dict: PDFDict, byteRange: [number, number, number, number]): Promise<SignatureCheck> {
  const subfilter = dict.lookupMaybe(PDFName.of('SubFilter'), PDFName)?.decodeText() ?? 'unknown';
  const isTimestamp = dict.lookupMaybe(PDFName.of('Type'), PDFName)?.decodeText() === 'DocTimeStamp' || subfilter === 'ETSI.RFC3161';
  const docMdp = docMdpOf(dict);
  const kind: SignatureKind = isTimestamp ? 'timestamp' : docMdp !== undefined ? 'certification' : 'approval';
  const [a, b, c, d] = byteRange;
  const result: SignatureCheck = {
    kind,
    subfilter,
    claimedTime: dateOf(dict.lookupMaybe(PDFName.of('M'), PDFString, PDFHexString)),
    byteRange,
    coversWholeDocument: a === 0 && c + d === pdf.length,
    valid: false,
    ...(docMdp !== undefined ? { docMdp } : {}),
  };
  if (a !== 0 || b < 0 || c < b || c + d > pdf.length) return { ...result, problem: 'its byte ranges do not fit the file' };
  const signedBytes = Buffer.concat([pdf.subarray(0, b), pdf.subarray(c, c + d)]);
  const contents = trimmedDer(hexBetween(pdf, b, c));
  if (!contents) return { ...result, problem: 'its /Contents is not a CMS structure' };
  try {
    if (isTimestamp) {
      const info = await readTimestampToken(contents);
      const over = info.imprint.equals(sha256(signedBytes));
      const valid = info.signatureValid && over;
      return {
        ...result,
        signer: info.tsa,
        valid,
        timestamp: { ...info, valid, token: contents },
        ...(valid ? {} : { problem: over ? 'the authority’s signature does not verify' : 'the file changed since it was timestamped' }),
      };
    }
    const signed = readSignedData(contents);
    const verified = await signed
      .verify({ signer: 0, data: toArrayBuffer(signedBytes), checkChain: false, extendedMode: true })
      .then((outcome) => ({ ok: outcome.signatureVerified === true, certificate: outcome.signerCertificate }))
      .catch((error: { signerCertificate?: pkijs.Certificate; message?: string }) => ({
        ok: false,
        certificate: error?.signerCertificate,
        message: error?.message,
      }));
    const timestamp = await signatureTimestamp(signed);
    return {
      ...result,
      signer: verified.certificate ? subjectOf(verified.certificate) : undefined,
      valid: verified.ok,
      ...(timestamp ? { timestamp } : {}),
      ...(verified.ok ? {} : { problem: 'the signature does not match the signed bytes (the file changed after it was signed)' }),
    };
  } catch (error) {
    return { ...result, problem: `its signature cannot be read: ${(error as Error).message}` };
  }
}

/** The signature-time-stamp of a CMS signature, checked to be over that signature's value. */
async function signatureTimestamp(signed: pkijs.SignedData): Promise<CheckedTimestamp | undefined> {
  const attribute = signed.signerInfos[0]?.unsignedAttrs?.attributes.find((entry) => entry.type === OID.signatureTimeStampToken);
  if (!attribute) return undefined;
  const token = Buffer.from(attribute.values[0].toBER(false));
  const info = await readTimestampToken(token);
  return { ...info, valid: info.signatureValid && info.imprint.equals(sha256(signatureValue(signed))), token };
}

function docMdpOf(dict: PDFDict): number | undefined {
  const references = dict.lookupMaybe(PDFName.of('Reference'), PDFArray);
  for (let index = 0; index < (references?.size() ?? 0); index += 1) {
    const reference = references!.lookupMaybe(index, PDFDict);
    if (reference?.lookupMaybe(PDFName.of('TransformMethod'), PDFName)?.decodeText() !== 'DocMDP') continue;
    const params = reference.lookupMaybe(PDFName.of('TransformParams'), PDFDict);
    return params?.lookupMaybe(PDFName.of('P'), PDFNumber)?.asNumber() ?? 2;
  }
  return undefined;
}

function hexBetween(pdf: Uint8Array, start: number, end: number): Buffer {
  const text = Buffer.from(pdf.subarray(start, end))
    .toString('latin1')
    .replace(/[<>\s]/g, '');
  return Buffer.from(text.length % 2 ? `${text}0` : text, 'hex');
}

/** The DER value at the start of zero-padded /Contents, cut to its own length. */
function trimmedDer(bytes: Buffer): Buffer | undefined {
  const parsed = asn1js.fromBER(toArrayBuffer(bytes));
  if (parsed.offset === -1) return undefined;
  return bytes.subarray(0, parsed.offset);
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function dateOf(value: PDFString | PDFHexString | undefined): Date | undefined {
  try {
    return value?.decodeDate();
  } catch {
    return undefined;
  }
}
