// The documents the cases start from (the sample NDA, the NDA with a text field) and the edits the
// attacks append to them as raw incremental updates (incremental.ts), objects serialized by pdf-lib.
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, type PDFStream, PDFString, StandardFonts } from 'pdf-lib';
import { buildSampleNda } from '../../lib/pdf/samples';
import { appendUpdate, nextObjectNumber, streamBody } from './incremental';
import { serialize } from './signing';

/** The name of the text field the form documents carry, and its value when signed. */
export const FIELD_NAME = 'Amount';
export const FIELD_VALUE = 'EUR 100';

/** The sample NDA as built (object streams: the service's sealer re-saves it). */
export async function ndaPdf(): Promise<Uint8Array> {
  return (await buildSampleNda()).pdf;
}

export async function ndaDocument(): Promise<PDFDocument> {
  return PDFDocument.load(await ndaPdf(), { updateMetadata: false });
}

/** The NDA with a text field "Amount" (value "EUR 100", appearance generated) under the text on page 1. */
export async function formDocument(): Promise<PDFDocument> {
  const doc = await ndaDocument();
  const field = doc.getForm().createTextField(FIELD_NAME);
  field.setText(FIELD_VALUE);
  field.addToPage(doc.getPage(0), { x: 54, y: 20, width: 200, height: 22 });
  return doc;
}

/** Saved with a classic xref table and no object streams: every object readable where it is written. */
export async function classic(doc: PDFDocument): Promise<Buffer> {
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** Every revision parsed by pdf-lib; where an object is defined twice, its last body in the file wins. */
export function loadAll(pdf: Uint8Array): Promise<PDFDocument> {
  return PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: false });
}

/** Page 1's object number and its dictionary as the file stands. */
export async function firstPage(pdf: Uint8Array): Promise<{ doc: PDFDocument; number: number; page: PDFDict }> {
  const doc = await loadAll(pdf);
  const page = doc.getPage(0);
  return { doc, number: page.ref.objectNumber, page: page.node };
}

/** The page's content streams' object numbers, in drawing order. */
export function contentNumbers(page: PDFDict): number[] {
  const contents = page.get(PDFName.of('Contents'));
  if (contents instanceof PDFRef) return [contents.objectNumber];
  if (contents instanceof PDFArray) return contents.asArray().map((item) => (item as PDFRef).objectNumber);
  throw new Error('page 1 has no content stream reference');
}

/** A copy of `dict` with entries set (values as pdf-lib objects or plain values `context.obj` takes). */
export function withEntries(doc: PDFDocument, dict: PDFDict, entries: Record<string, unknown>): Buffer {
  const copy = dict.clone(doc.context);
  for (const [key, value] of Object.entries(entries)) copy.set(PDFName.of(key), doc.context.obj(value as never));
  return serialize(copy);
}

/** A content stream that shows `text` in Helvetica (font resource `/CorpusHelv`) at (x, y). */
export function textContent(text: string, x: number, y: number, size = 12): string {
  return `q BT /CorpusHelv ${size} Tf ${x} ${y} Td ${PDFString.of(text).toString()} Tj ET Q`;
}

/** A standard Type 1 font dictionary body. */
export function type1Font(baseFont: string): string {
  return `<< /Type /Font /Subtype /Type1 /BaseFont /${baseFont} /Encoding /WinAnsiEncoding >>`;
}

/**
 * An update that gives page 1 another content stream list: `contents(current, fresh)` answers the new
 * /Contents from the current numbers and a fresh stream (`stream`, drawn with /CorpusHelv), which is
 * added (with a Helvetica font when it draws text).
 */
export async function updatePageContents(
  pdf: Uint8Array,
  contents: (current: number[], fresh: number | undefined) => number[],
  stream?: string,
): Promise<Buffer> {
  const { doc, number, page } = await firstPage(pdf);
  const objects = new Map<number, string | Buffer>();
  let fresh: number | undefined;
  let resources = page.lookup(PDFName.of('Resources'), PDFDict);
  if (stream !== undefined) {
    fresh = nextObjectNumber(pdf);
    objects.set(fresh, streamBody('', stream));
    if (stream.includes('/CorpusHelv')) {
      objects.set(fresh + 1, type1Font('Helvetica'));
      resources = withFont(doc, resources, fresh + 1);
    }
  }
  const refs = contents(contentNumbers(page), fresh).map((n) => PDFRef.of(n));
  objects.set(number, withEntries(doc, page, { Contents: doc.context.obj(refs), Resources: resources }));
  return appendUpdate(pdf, objects);
}

/** A copy of a resource dictionary whose /Font also names /CorpusHelv → `font`. */
export function withFont(doc: PDFDocument, resources: PDFDict, font: number): PDFDict {
  const copy = resources.clone(doc.context);
  const fonts = (resources.lookupMaybe(PDFName.of('Font'), PDFDict) ?? doc.context.obj({})).clone(doc.context);
  fonts.set(PDFName.of('CorpusHelv'), PDFRef.of(font));
  copy.set(PDFName.of('Font'), fonts);
  return copy;
}

/**
 * An update that fills the text field `name` with `value`: the field's /V and a new normal appearance
 * (/AP /N, a form XObject drawing the value) on its widget. Form filling, as a reader's user does it.
 */
export async function fillTextField(pdf: Uint8Array, name: string, value: string): Promise<Buffer> {
  const doc = await loadAll(pdf);
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const fieldRef = fields.asArray().find((item) => {
    const title = doc.context.lookup(item, PDFDict).lookupMaybe(PDFName.of('T'), PDFString, PDFHexString);
    return title?.decodeText() === name;
  }) as PDFRef | undefined;
  if (!fieldRef) throw new Error(`no field ${name}`);
  const field = doc.context.lookup(fieldRef, PDFDict);
  const kids = field.lookupMaybe(PDFName.of('Kids'), PDFArray);
  const widgetRef = (kids?.get(0) as PDFRef | undefined) ?? fieldRef;
  const widget = doc.context.lookup(widgetRef, PDFDict);
  const [x1, y1, x2, y2] = widget
    .lookup(PDFName.of('Rect'), PDFArray)
    .asArray()
    .map((n) => Number(n.toString()));
  const appearance = nextObjectNumber(pdf);
  const font = appearance + 1;
  const objects = new Map<number, string | Buffer>([
    [
      appearance,
      streamBody(
        `/Type /XObject /Subtype /Form /BBox [0 0 ${x2 - x1} ${y2 - y1}] /Resources << /Font << /CorpusHelv ${font} 0 R >> >>`,
        `/Tx BMC ${textContent(value, 2, 7, 12)} EMC`,
      ),
    ],
    [font, type1Font('Helvetica')],
  ]);
  const ap = doc.context.obj({ N: PDFRef.of(appearance) });
  const v = PDFString.of(value);
  if (widgetRef === fieldRef) objects.set(fieldRef.objectNumber, withEntries(doc, field, { V: v, AP: ap }));
  else {
    objects.set(fieldRef.objectNumber, withEntries(doc, field, { V: v }));
    objects.set(widgetRef.objectNumber, withEntries(doc, widget, { AP: ap }));
  }
  return appendUpdate(pdf, objects);
}

/** A new stream object registered in `doc` (uncompressed: tests read its text). */
export function registerStream(doc: PDFDocument, content: string, dict: Record<string, unknown> = {}): PDFRef {
  return doc.context.register(doc.context.stream(content, dict as never) as PDFStream);
}

/** Helvetica embedded in `doc` and named /CorpusHelv in page 1's resources. */
export async function addCorpusFont(doc: PDFDocument, page = doc.getPage(0)): Promise<PDFRef> {
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.node.setFontDictionary(PDFName.of('CorpusHelv'), font.ref);
  return font.ref;
}

/** The first font of page 1's resources whose /BaseFont is `baseFont`: its resource name and object. */
export function pageFont(doc: PDFDocument, page: PDFDict, baseFont = 'Times-Roman'): { name: string; ref: PDFRef } {
  const fonts = page.lookup(PDFName.of('Resources'), PDFDict).lookup(PDFName.of('Font'), PDFDict);
  for (const [name, value] of fonts.entries()) {
    const font = doc.context.lookup(value, PDFDict);
    if (font.get(PDFName.of('BaseFont')) === PDFName.of(baseFont) && value instanceof PDFRef)
      return { name: name.decodeText(), ref: value };
  }
  throw new Error(`page 1 uses no ${baseFont} font`);
}

/** The page's drawing of `text` in the page's own font resource `font` (no resource added). */
export function textWith(font: string, text: string, x: number, y: number, size = 12): string {
  return `q BT /${font} ${size} Tf ${x} ${y} Td ${PDFString.of(text).toString()} Tj ET Q`;
}
