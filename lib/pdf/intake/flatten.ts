// Form fields become page content: each widget's appearance is drawn where a reader draws it, then the
// widgets and the AcroForm go. Nothing remains to type into, tick or submit.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import {
  concatTransformationMatrix,
  drawObject,
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFDropdown,
  type PDFField,
  type PDFFont,
  PDFName,
  PDFNumber,
  PDFOptionList,
  type PDFPage,
  PDFRef,
  PDFStream,
  PDFTextField,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import { t } from '../../i18n';
import { embedDejaVu } from '../fonts';
import { name } from './checks';
import { refuse } from './refuse';

/**
 * Flattens every widget on the pages (hidden ones were stripped before). pdf-lib's form.flatten()
 * draws each appearance at the widget's corner and ignores the appearance's /BBox and /Matrix, which
 * moves rotated or offset appearances; this follows the rule readers use (PDF 32000-1, 12.5.5): the
 * transformed /BBox is fitted to /Rect. Fields without an appearance get one from their value first,
 * as readers make one. Answers whether there was a form or a widget.
 */
export async function flattenForm(doc: PDFDocument): Promise<boolean> {
  const catalog = doc.catalog;
  const form = catalog.lookup(name('AcroForm'));
  if (form instanceof PDFDict) await writeMissingAppearances(doc);
  let flattened = form !== undefined;
  for (const page of doc.getPages()) {
    const annots = page.node.lookup(name('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    const kept = annots.asArray().filter((item) => {
      const annot = doc.context.lookup(item);
      if (!(annot instanceof PDFDict) || annot.lookup(name('Subtype')) !== name('Widget')) return true;
      drawAppearance(page, annot);
      flattened = true;
      return false;
    });
    if (kept.length !== annots.size()) page.node.set(name('Annots'), doc.context.obj(kept));
  }
  catalog.delete(name('AcroForm'));
  return flattened;
}

/**
 * pdf-lib writes a missing appearance in Helvetica (WinAnsi only); for other text it takes DejaVu
 * Sans when the font has every character and none needs shaping or right-to-left order (Arabic,
 * Hebrew …), which pdf-lib cannot do. Otherwise the value would be lost or garbled: refused.
 */
async function writeMissingAppearances(doc: PDFDocument): Promise<void> {
  let fields: PDFField[];
  let helvetica: PDFFont;
  try {
    fields = doc.getForm().getFields();
    helvetica = doc.getForm().getDefaultFont();
  } catch (error) {
    throw refuse(t('errors.pdf.form_cannot_read_flatten', { reason: (error as Error).message }));
  }
  let unicode: PDFFont | undefined;
  for (const field of fields) {
    if (!field.needsAppearancesUpdate()) continue;
    try {
      field.defaultUpdateAppearances(helvetica);
      continue;
    } catch {
      // Not WinAnsi text: try the Unicode font below.
    }
    const text = fieldText(field);
    const missing = [...text].find((char) => SHAPED.test(char) || !dejaVuHas(char));
    if (missing !== undefined) {
      throw refuse(t('errors.pdf.form_field_undrawable', { field: field.getName(), missing }));
    }
    unicode ??= await embedDejaVu(doc);
    try {
      field.defaultUpdateAppearances(unicode);
    } catch (error) {
      throw refuse(t('errors.pdf.form_field_cannot_made', { field: field.getName(), reason: (error as Error).message }));
    }
  }
}

// Scripts drawn right to left or with contextual shaping.
const SHAPED =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Thai}]/u;

let dejaVu: ReturnType<typeof fontkit.create> | undefined;

function dejaVuHas(char: string): boolean {
  if (/\s/.test(char)) return true;
  dejaVu ??= fontkit.create(fs.readFileSync(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')));
  return dejaVu.hasGlyphForCodePoint(char.codePointAt(0)!);
}

/** The text a field's appearance shows: its value, and a list's options. */
function fieldText(field: PDFField): string {
  if (field instanceof PDFTextField) return field.getText() ?? '';
  if (field instanceof PDFDropdown || field instanceof PDFOptionList) return [...field.getOptions(), ...field.getSelected()].join('');
  return '';
}

function drawAppearance(page: PDFPage, widget: PDFDict): void {
  const context = widget.context;
  const appearances = widget.lookup(name('AP'));
  if (!(appearances instanceof PDFDict)) return;
  let entry = appearances.get(name('N'));
  let normal = context.lookup(entry);
  if (normal instanceof PDFDict) {
    // A state dictionary (check boxes, radio buttons): the appearance of the current /AS state.
    const state = widget.lookup(name('AS'));
    entry = state instanceof PDFName ? normal.get(state) : undefined;
    normal = context.lookup(entry);
  }
  if (!(normal instanceof PDFStream)) return;
  const ref = entry instanceof PDFRef ? entry : context.register(normal);
  const bbox = numbers(normal.dict.lookup(name('BBox')), 4);
  const rect = numbers(widget.lookup(name('Rect')), 4);
  if (!bbox || !rect) return;
  const matrix = numbers(normal.dict.lookup(name('Matrix')), 6) ?? [1, 0, 0, 1, 0, 0];
  const [a, b, c, d, e, f] = matrix;
  const corners = [
    [bbox[0], bbox[1]],
    [bbox[2], bbox[1]],
    [bbox[0], bbox[3]],
    [bbox[2], bbox[3]],
  ].map(([x, y]) => [a * x + c * y + e, b * x + d * y + f]);
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [left, right] = [Math.min(rect[0], rect[2]), Math.max(rect[0], rect[2])];
  const [bottom, top] = [Math.min(rect[1], rect[3]), Math.max(rect[1], rect[3])];
  if (maxX - minX <= 0 || maxY - minY <= 0) return;
  const sx = (right - left) / (maxX - minX);
  const sy = (top - bottom) / (maxY - minY);
  // Drawn with Do, an appearance must say it is a form XObject; some producers leave that implicit.
  normal.dict.set(name('Type'), name('XObject'));
  normal.dict.set(name('Subtype'), name('Form'));
  const xObject = page.node.newXObject('FlatWidget', ref);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(sx, 0, 0, sy, left - minX * sx, bottom - minY * sy),
    drawObject(xObject),
    popGraphicsState(),
  );
}

function numbers(object: unknown, length: number): number[] | undefined {
  if (!(object instanceof PDFArray) || object.size() !== length) return undefined;
  const values = object.asArray().map((item) => (item instanceof PDFNumber ? item.asNumber() : Number.NaN));
  return values.every(Number.isFinite) ? values : undefined;
}
