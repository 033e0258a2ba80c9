import type { PDFDocument, PDFFont, PDFImage, PDFPage } from 'pdf-lib';
import { t } from '../i18n';
import { loadPdf } from './document';
import { drawCheckMark, drawChoices, drawFittedImage, drawFittedText, inBox } from './draw';
import { placeEditable, replaceEditable } from './editable';
import { PdfError } from './errors';
import { embedDejaVu } from './fonts';
import { boxMatrix, displayedSize } from './geometry';
import { checkImage, ownBuffer } from './image';
import { lockedPrefill, unfilledWidgets, WIDGET_TYPES, type Widget, type WidgetType } from './widgets';

export interface StampInput {
  /** Only this signer's widgets. */
  widgets: Widget[];
  signer: { name: string; email: string };
  signedAt: Date;
  /** PNG or JPEG; drawn into each 'signature' widget, aspect ratio kept, centred. */
  signatureImage?: Uint8Array;
  /** When absent, 'initials' widgets get the letters of the name ("Ann Lee" -> "AL"). */
  initialsImage?: Uint8Array;
  /** For text (string), checkbox (boolean), dropdown and radio (string, one of options). */
  values: Record<string, string | boolean>;
}

// Points a widget may overhang the page edge: editors round coordinates.
const EDGE_TOLERANCE = 0.5;

/** Draws the signer's appearance on their widgets and returns the new PDF bytes (not sealed). Throws PdfError on input it cannot draw. */
export async function stampWidgets(pdf: Uint8Array, input: StampInput): Promise<Uint8Array> {
  const doc = await loadPdf(pdf);
  await drawWidgets(doc, input);
  return doc.save();
}

/** Checks `input` against `doc` and draws it; answers the appearance, whose font later marks share. */
async function drawWidgets(doc: PDFDocument, input: StampInput): Promise<Appearance> {
  const pages = doc.getPages();
  for (const widget of input.widgets) checkWidget(widget, pages);
  checkValues(input);
  const unfilled = unfilledWidgets(input.widgets, input.values);
  if (unfilled.length > 0) {
    throw new PdfError(
      'unfilled_fields',
      t('errors.pdf.required_widgets_no_value', { widgets: unfilled.map((widget) => widget.id).join(', ') }),
    );
  }

  const appearance = await embedAppearance(doc, input);
  for (const widget of input.widgets) {
    const page = pages[widget.page - 1];
    if (widget.prefill?.editable) {
      // Already in the PDF; a value the signer changed replaces it.
      const value = input.values[widget.id];
      if (typeof value === 'string' && value !== widget.prefill.value)
        replaceEditable(doc, page, widget, singleLine(value), await appearance.font());
      continue;
    }
    const content = await contentOf(widget, input, appearance);
    if (!content) continue;
    inBox(page, boxMatrix(page, widget), widget.width, widget.height, () => {
      if (content.kind === 'image') drawFittedImage(page, content.image, widget.width, widget.height);
      else if (content.kind === 'check') drawCheckMark(page, widget.width, widget.height);
      else if (content.kind === 'choices') drawChoices(page, content.font, content.options, content.chosen, widget.width, widget.height);
      else drawFittedText(page, content.font, content.text, widget.width, widget.height, widget.type === 'initials');
    });
  }
  return appearance;
}

/**
 * Stamps the values a document's sender prefilled (each widget's `prefill`) into the PDF, before its
 * first seal: text and dropdown values as text, a ticked checkbox as a check mark, a radio group's options with the chosen one marked.
 */
export async function stampPrefill(pdf: Uint8Array, widgets: Widget[]): Promise<Uint8Array> {
  const locked = widgets.filter(lockedPrefill);
  const values = Object.fromEntries(locked.map((widget) => [widget.id, widget.prefill!.value]));
  // No signer yet: only the value types a sender may prefill, and nothing counted as unfilled.
  const unrequired = locked.map((widget) => ({ ...widget, required: false }));
  // One load and one save: the locked values drawn, then the editable ones placed, in the same font.
  const doc = await loadPdf(pdf);
  const appearance = await drawWidgets(doc, { widgets: unrequired, signer: { name: '', email: '' }, signedAt: new Date(0), values });
  const pages = doc.getPages();
  for (const widget of widgets.filter((candidate) => candidate.prefill?.editable)) {
    checkWidget(widget, pages);
    placeEditable(doc, pages[widget.page - 1], widget, singleLine(String(widget.prefill!.value)), await appearance.font());
  }
  return doc.save();
}

type Content =
  | { kind: 'image'; image: PDFImage }
  | { kind: 'check' }
  | { kind: 'text'; text: string; font: PDFFont }
  | { kind: 'choices'; options: string[]; chosen: string; font: PDFFont };

interface Appearance {
  signature?: PDFImage;
  initials?: PDFImage;
  font: () => Promise<PDFFont>;
}

async function embedAppearance(doc: PDFDocument, input: StampInput): Promise<Appearance> {
  const uses = new Set(input.widgets.map((widget) => widget.type));
  const signature = uses.has('signature') ? await embedImage(doc, input.signatureImage, 'signature') : undefined;
  const initials = uses.has('initials') && input.initialsImage ? await embedImage(doc, input.initialsImage, 'initials') : undefined;
  let font: Promise<PDFFont> | undefined;
  // Embedded on first use only: a signature-only apply carries no font subset.
  return { signature, initials, font: () => (font ??= embedDejaVu(doc)) };
}

async function embedImage(doc: PDFDocument, bytes: Uint8Array | undefined, what: string): Promise<PDFImage> {
  if (!bytes) throw new PdfError('missing_appearance', t('errors.pdf.widget_needs_image', { what }));
  // Checked again here, before pdf-lib decodes it: the limits hold even for an image stored before them.
  const checked = await checkImage(bytes);
  if (!('kind' in checked)) throw new PdfError('missing_appearance', t('errors.pdf.image_refused', { what, reason: checked.message }));
  try {
    return await (checked.kind === 'png' ? doc.embedPng(ownBuffer(bytes)) : doc.embedJpg(ownBuffer(bytes)));
  } catch {
    throw new PdfError('missing_appearance', t('errors.pdf.image_not_readable_png_jpeg', { what }));
  }
}

async function contentOf(widget: Widget, input: StampInput, appearance: Appearance): Promise<Content | undefined> {
  const text = async (value: string) => {
    const line = singleLine(value);
    return line === '' ? undefined : ({ kind: 'text', text: line, font: await appearance.font() } as const);
  };
  const value = input.values[widget.id];
  const stamped = () => autoFilledText(widget.type, input.signer, input.signedAt) ?? '';
  switch (widget.type) {
    case 'signature':
      return { kind: 'image', image: appearance.signature! };
    case 'initials':
      if (appearance.initials) return { kind: 'image', image: appearance.initials };
      return identity(widget, await text(stamped()));
    case 'date':
      return text(stamped());
    case 'name':
    case 'email':
      return identity(widget, await text(stamped()));
    case 'checkbox':
      return value === true ? { kind: 'check' } : undefined;
    case 'text':
    case 'dropdown':
      return typeof value === 'string' ? text(value) : undefined;
    case 'radio':
      // Every option is listed, the chosen one marked: the record shows what was chosen among what.
      return typeof value === 'string'
        ? {
            kind: 'choices',
            options: (widget.options ?? [value]).map(singleLine),
            chosen: singleLine(value),
            font: await appearance.font(),
          }
        : undefined;
  }
}

/** An auto-filled widget must get a mark: a blank where the signer's identity belongs is refused. */
function identity(widget: Widget, content: Content | undefined): Content {
  if (!content) throw new PdfError('missing_appearance', t('errors.pdf.signer_no_put_widget', { type: widget.type, id: widget.id }));
  return content;
}

/**
 * The text stamped on an auto-filled widget that gets no image: the initials' letters, the UTC date of
 * the apply, the name, the e-mail. The sign page shows it before the apply, so it comes from here.
 */
export function autoFilledText(type: WidgetType, signer: { name: string; email: string }, signedAt: Date): string | undefined {
  switch (type) {
    case 'initials':
      return singleLine(initialsOf(signer.name));
    case 'date':
      return signedAt.toISOString().slice(0, 10);
    case 'name':
      return singleLine(signer.name);
    case 'email':
      return singleLine(signer.email);
    default:
      return undefined;
  }
}

/** The first letter of each word of a name, upper-cased: "Ann Lee" -> "AL", "Zoë Šimůnek" -> "ZŠ". */
export function initialsOf(name: string): string {
  const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return name
    .normalize('NFC')
    .split(/\s+/u)
    .map((word) => [...graphemes.segment(word)].find((part) => /\p{L}/u.test(part.segment))?.segment ?? '')
    .join('')
    .toLocaleUpperCase();
}

/** A widget holds one line: control characters and runs of white space become one space. */
function singleLine(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
}

function checkWidget(widget: Widget, pages: PDFPage[]): void {
  if (!(WIDGET_TYPES as readonly string[]).includes(widget.type)) {
    throw new PdfError('invalid_widget', t('errors.pdf.widget_unknown_type', { id: widget.id, type: String(widget.type) }));
  }
  if (!Number.isInteger(widget.page) || widget.page < 1 || widget.page > pages.length) {
    throw new PdfError(
      'widget_page',
      t('errors.pdf.widget_page_but_pdf_page', { id: widget.id, page: widget.page, pageCount: pages.length }),
    );
  }
  const { width, height } = displayedSize(pages[widget.page - 1]);
  const numbers = [widget.x, widget.y, widget.width, widget.height];
  const inside =
    numbers.every(Number.isFinite) &&
    widget.width > 0 &&
    widget.height > 0 &&
    widget.x >= -EDGE_TOLERANCE &&
    widget.y >= -EDGE_TOLERANCE &&
    widget.x + widget.width <= width + EDGE_TOLERANCE &&
    widget.y + widget.height <= height + EDGE_TOLERANCE;
  if (!inside)
    throw new PdfError('widget_bounds', t('errors.pdf.widget_does_not_lie_within', { id: widget.id, page: widget.page, width, height }));
}

function checkValues(input: StampInput): void {
  if (Number.isNaN(input.signedAt.getTime())) throw new PdfError('invalid_value', t('errors.pdf.signed_at_invalid'));
  for (const widget of input.widgets) {
    const value = input.values[widget.id];
    if (value === undefined) continue;
    const wrong =
      (widget.type === 'checkbox' && typeof value !== 'boolean') ||
      ((widget.type === 'text' || widget.type === 'dropdown' || widget.type === 'radio') && typeof value !== 'string') ||
      ((widget.type === 'dropdown' || widget.type === 'radio') &&
        widget.options !== undefined &&
        !widget.options.includes(value as string));
    if (wrong) throw new PdfError('invalid_value', t('errors.pdf.value_widget_does_not_suit', { id: widget.id, type: widget.type }));
  }
}
