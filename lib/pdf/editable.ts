// A value the sender prefilled that the signer may change (issue 40, item 1): drawn in a form
// XObject of its own, named after its field, so that a signer's change replaces that one object in
// the next revision (each revision is a whole file: the old value is in no later one) instead of
// drawing over it. The earlier revision, sealed and kept, still shows what was prefilled.
import { degrees, drawObject, drawText, PDFDict, type PDFDocument, type PDFFont, PDFName, type PDFPage, PDFRef } from 'pdf-lib';
import { fitText, INK, inBox } from './draw';
import { PdfError } from './errors';
import { boxMatrix } from './geometry';
import type { Widget } from './widgets';

const FONT = 'F';
const nameOf = (widget: Widget) => PDFName.of(`SvcPrefill-${widget.id}`);

/** The field's value as a form XObject of the box's size, its text fitted as a stamped value is. */
function valueObject(doc: PDFDocument, font: PDFFont, widget: Widget, text: string) {
  const { line, x, y, size } = fitText(font, text, widget.width, widget.height);
  const operators = drawText(font.encodeText(line), {
    color: INK,
    font: FONT,
    size,
    rotate: degrees(0),
    xSkew: degrees(0),
    ySkew: degrees(0),
    x,
    y,
  });
  return doc.context.formXObject(operators, {
    BBox: [0, 0, widget.width, widget.height],
    Resources: { Font: { [FONT]: font.ref } },
  });
}

/** Places an editable prefilled value on its page (at creation, before the first seal). */
export function placeEditable(doc: PDFDocument, page: PDFPage, widget: Widget, text: string, font: PDFFont): void {
  const ref = doc.context.register(valueObject(doc, font, widget, text));
  page.node.setXObject(nameOf(widget), ref);
  inBox(page, boxMatrix(page, widget), widget.width, widget.height, () => page.pushOperators(drawObject(nameOf(widget))));
}

/** Replaces an editable prefilled value with the signer's (their apply's revision no longer holds the old one). */
export function replaceEditable(doc: PDFDocument, page: PDFPage, widget: Widget, text: string, font: PDFFont): void {
  const objects = page.node.Resources()?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  const ref = objects?.get(nameOf(widget));
  if (!(ref instanceof PDFRef)) throw new PdfError('invalid_value', `the prefilled value of ${widget.id} is not in the PDF`);
  doc.context.assign(ref, valueObject(doc, font, widget, text));
}
