// The corpus's own signing step, for signatures the service's sealer cannot make: a DocMDP P=2
// certification, /Contents before /ByteRange, a gap wider than /Contents, a field no form names.
// The CMS is the service's (lib/pdf/pades/cms.ts): PAdES B-T when a timestamp authority is given.
import { PDFArray, PDFDict, type PDFDocument, PDFInvalidObject, PDFName, type PDFObject, type PDFRef, PDFString } from 'pdf-lib';
import { addSignatureTimestamp, contentInfo, OID, type SigningKey, sha256, signatureValue, signDigest } from '../../lib/pdf/pades/cms';
import type { TimestampAuthority } from '../../lib/pdf/pades/timestamps';

/** What the signing step fills in: the same placeholder @signpdf writes. */
export const BYTE_RANGE_PLACEHOLDER = '/ByteRange [0 /********** /********** /**********]';

export interface PlaceholderOptions {
  reason?: string;
  name?: string;
  signedAt?: Date;
  /** Room for the CMS, in bytes (hex digits are twice that). */
  room?: number;
  /** A certification signature with this DocMDP permission (catalog /Perms names it). */
  docMdp?: 1 | 2 | 3;
  /** /Contents written before /ByteRange, so /ByteRange lies in the second signed range (SWA). */
  contentsFirst?: boolean;
  /** No form field names it: left out of /AcroForm /Fields and the page's /Annots. */
  unreachable?: boolean;
  fieldName?: string;
}

const CONTENTS_ROOM = 20 * 1024;

/**
 * Adds a signature dictionary (raw bytes, so pdf-lib writes it as given) with a zeroed /Contents and
 * the /ByteRange placeholder, its widget on page 1, and the AcroForm field entry unless `unreachable`.
 */
export function addSignaturePlaceholder(doc: PDFDocument, options: PlaceholderOptions = {}): { sigRef: PDFRef; widgetRef: PDFRef } {
  const contents = `/Contents <${'0'.repeat(2 * (options.room ?? CONTENTS_ROOM))}>`;
  const reference = options.docMdp
    ? `/Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${options.docMdp} /V /1.2 >> >>]\n`
    : '';
  const ranges = options.contentsFirst ? `${contents}\n${BYTE_RANGE_PLACEHOLDER}` : `${BYTE_RANGE_PLACEHOLDER}\n${contents}`;
  const entries = [
    '<<\n/Type /Sig\n/Filter /Adobe.PPKLite\n/SubFilter /ETSI.CAdES.detached\n',
    reference,
    `${ranges}\n`,
    `/Reason ${PDFString.of(options.reason ?? 'Approved').toString()}\n`,
    `/M ${PDFString.fromDate(options.signedAt ?? new Date()).toString()}\n`,
    `/Name ${PDFString.of(options.name ?? 'Document seal (development)').toString()}\n>>`,
  ];
  const sigRef = doc.context.register(PDFInvalidObject.of(Buffer.from(entries.join(''), 'latin1')));
  const widgetRef = addSignatureField(doc, sigRef, options);
  if (options.docMdp) doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: sigRef }));
  return { sigRef, widgetRef };
}

/**
 * A signature field whose value is `sigRef`, as a widget on page 1 (zero size, printable), listed in
 * the page's /Annots and the AcroForm's /Fields unless `unreachable`.
 */
export function addSignatureField(doc: PDFDocument, sigRef: PDFRef, options: { fieldName?: string; unreachable?: boolean } = {}): PDFRef {
  const page = doc.getPage(0);
  const widgetRef = doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      V: sigRef,
      T: PDFString.of(options.fieldName ?? 'Seal'),
      F: 4,
      P: page.ref,
    }),
  );
  if (options.unreachable) return widgetRef;
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray) ?? doc.context.obj([]);
  annots.push(widgetRef);
  page.node.set(PDFName.of('Annots'), annots);
  let acroForm = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (!acroForm) {
    acroForm = doc.context.obj({ Fields: [] });
    doc.catalog.set(PDFName.of('AcroForm'), doc.context.register(acroForm));
  }
  const fields = acroForm.lookupMaybe(PDFName.of('Fields'), PDFArray) ?? doc.context.obj([]);
  fields.push(widgetRef);
  acroForm.set(PDFName.of('Fields'), fields);
  acroForm.set(PDFName.of('SigFlags'), doc.context.obj(3));
  return widgetRef;
}

export interface Signed {
  pdf: Buffer;
  cms: Buffer;
  byteRange: [number, number, number, number];
}

/**
 * Signs the one placeholder in `pdf`: /ByteRange [0 b c d] where b is the /Contents string's "<" and
 * c just past its ">" (or `gapEnd(c)`, to widen the gap), written over the placeholder in place, then
 * the CMS over [0,b)+[c,c+d) into /Contents.
 */
export async function signPlaceholder(
  pdf: Uint8Array,
  key: SigningKey,
  options: { tsa?: TimestampAuthority; gapEnd?: (contentsEnd: number, text: string) => number } = {},
): Promise<Signed> {
  const bytes = Buffer.from(pdf);
  const text = bytes.toString('latin1');
  const placeholder = text.indexOf(BYTE_RANGE_PLACEHOLDER);
  if (placeholder < 0 || text.indexOf(BYTE_RANGE_PLACEHOLDER, placeholder + 1) >= 0)
    throw new Error('exactly one /ByteRange placeholder expected');
  // The dictionary's /Contents: the nearest one, before or after the placeholder.
  const after = text.indexOf('/Contents <', placeholder);
  const before = text.lastIndexOf('/Contents <', placeholder);
  const contents = after >= 0 && (before < 0 || after - placeholder < placeholder - before) ? after : before;
  const b = text.indexOf('<', contents);
  const contentsEnd = text.indexOf('>', b) + 1;
  const c = options.gapEnd ? options.gapEnd(contentsEnd, text) : contentsEnd;
  const byteRange: Signed['byteRange'] = [0, b, c, bytes.length - c];
  const written = `/ByteRange [${byteRange.join(' ')}]`;
  if (written.length > BYTE_RANGE_PLACEHOLDER.length) throw new Error('the byte range does not fit its placeholder');
  bytes.write(written.padEnd(BYTE_RANGE_PLACEHOLDER.length, ' '), placeholder, 'latin1');
  const cms = await cmsOver(key, Buffer.concat([bytes.subarray(0, b), bytes.subarray(c)]), options.tsa);
  const hex = cms.toString('hex');
  if (hex.length > contentsEnd - b - 2) throw new Error(`the CMS (${cms.length} bytes) does not fit /Contents`);
  bytes.write(hex, b + 1, 'latin1');
  return { pdf: bytes, cms, byteRange };
}

/** The service's CAdES detached CMS over `signed`, with a signature timestamp when `tsa` is given. */
export async function cmsOver(key: SigningKey, signed: Uint8Array, tsa?: TimestampAuthority): Promise<Buffer> {
  const signedData = await signDigest(key, { contentType: OID.data, digest: sha256(signed) });
  if (tsa) addSignatureTimestamp(signedData, await tsa.timestamp(sha256(signatureValue(signedData)), 'SHA-256'));
  return contentInfo(signedData);
}

/** A placeholder added to `doc`, saved with a classic xref table, and signed. */
export async function signDocument(
  doc: PDFDocument,
  key: SigningKey,
  options: PlaceholderOptions & { tsa?: TimestampAuthority } = {},
): Promise<Signed & { sigRef: PDFRef; widgetRef: PDFRef }> {
  const refs = addSignaturePlaceholder(doc, options);
  const prepared = await doc.save({ useObjectStreams: false });
  return { ...(await signPlaceholder(prepared, key, { tsa: options.tsa })), ...refs };
}

/** An object's bytes exactly as pdf-lib writes it (a dictionary, a stream with its data). */
export function serialize(object: PDFObject): Buffer {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return Buffer.from(bytes);
}
