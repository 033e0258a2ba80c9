import { PageSizes, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import { type LineStyle, TextFlow, wrap } from './flow';
import {
  NDA_CLAUSES,
  NDA_PREAMBLE,
  NDA_TITLE,
  SERVICES_PREAMBLE,
  SERVICES_TITLE,
  SERVICES_WITNESS,
  servicesAgreementClauses,
} from './sample-text';
import type { Widget, WidgetType } from './widgets';

export interface SampleTemplate {
  name: string;
  pdf: Uint8Array;
  roles: string[];
  widgets: Widget[];
}

const LETTER: [number, number] = [612, 792];
const A4: [number, number] = [...PageSizes.A4];
const SERVICES_PAGES = 50;
const GREY = rgb(0.4, 0.4, 0.4);
const GUIDE = rgb(0.55, 0.55, 0.55);
// Fixed dates keep the sample bytes, and so their SHA-256, the same on every build.
const SAMPLE_DATE = new Date('2025-01-01T00:00:00Z');

/** A one-page mutual NDA with two signer roles ("Disclosing Party", "Receiving Party"). */
export async function buildSampleNda(): Promise<SampleTemplate> {
  const { doc, regular, bold } = await newDocument('Mutual Non-Disclosure Agreement');
  const margin = 54;
  const flow = new TextFlow(doc, LETTER, { top: margin, right: margin, bottom: 250, left: margin });
  const body: LineStyle = { font: regular, size: 8.5, leading: 10.6 };
  centred(flow, NDA_TITLE, bold, 14);
  flow.space(8);
  flow.paragraph(NDA_PREAMBLE, body);
  NDA_CLAUSES.forEach(([heading, text], index) => {
    flow.space(3.5);
    flow.paragraph(text, body, { text: `${index + 1}. ${heading} `, font: bold });
  });
  if (flow.pages.length !== 1) throw new Error('The sample NDA text no longer fits one page.');

  const left = margin;
  const right = LETTER[0] / 2 + 10;
  const column = LETTER[0] / 2 - margin - 10;
  const widgets: Widget[] = [
    widget('disclosing-signature', 'signature', 'Disclosing Party', 1, left, 584, column, 46, true, 'Signature'),
    widget('disclosing-name', 'name', 'Disclosing Party', 1, left, 648, column, 20, true, 'Name'),
    widget('disclosing-date', 'date', 'Disclosing Party', 1, left, 688, 140, 20, true, 'Date'),
    widget('receiving-signature', 'signature', 'Receiving Party', 1, right, 584, column, 46, true, 'Signature'),
    widget('receiving-name', 'name', 'Receiving Party', 1, right, 648, column, 20, true, 'Name'),
    widget('receiving-title', 'text', 'Receiving Party', 1, right, 688, 140, 20, true, 'Title'),
    widget('receiving-date', 'date', 'Receiving Party', 1, right + 150, 688, column - 150, 20, true, 'Date'),
    widget('receiving-copy', 'checkbox', 'Receiving Party', 1, right, 728, 12, 12, false, 'Send me a copy'),
    {
      ...widget('receiving-term', 'dropdown', 'Receiving Party', 1, right + 150, 722, column - 150, 20, false, 'Term'),
      options: ['1 year', '2 years', '3 years'],
    },
  ];
  const page = flow.pages[0];
  page.drawText('DISCLOSING PARTY', { x: left, y: LETTER[1] - 572, size: 9, font: bold });
  page.drawText('RECEIVING PARTY', { x: right, y: LETTER[1] - 572, size: 9, font: bold });
  for (const field of widgets) drawGuide(page, field, regular);
  return { name: 'Mutual NDA (sample)', pdf: await save(doc), roles: ['Disclosing Party', 'Receiving Party'], widgets };
}

/** A 50-page services agreement ("Page n of 50"), two roles ("Client", "Provider"), initials on every page. */
export async function buildSampleServicesAgreement(): Promise<SampleTemplate> {
  const { doc, regular, bold } = await newDocument('Master Services Agreement');
  const flow = new TextFlow(doc, A4, { top: 64, right: 64, bottom: 104, left: 64 });
  const body: LineStyle = { font: regular, size: 10, leading: 13 };
  const heading: LineStyle = { font: bold, size: 10, leading: 20 };
  centred(flow, SERVICES_TITLE, bold, 16);
  flow.space(10);
  flow.paragraph(SERVICES_PREAMBLE, body);

  const lastTextPage = SERVICES_PAGES - 1;
  for (const clause of servicesAgreementClauses()) {
    const lines = clause.heading ? [] : wrap(clause.text, regular, body.size, flow.width);
    // A heading keeps two lines of its section with it.
    const height = clause.heading ? TextFlow.height(1, heading) + TextFlow.height(2, body) : TextFlow.height(lines.length, body) + 4;
    if (flow.pages.length >= lastTextPage && height > flow.room) break;
    if (clause.heading) {
      flow.keep(height);
      flow.line(clause.heading, heading);
    } else {
      for (const line of lines) flow.line(line, body);
      flow.space(4);
    }
  }
  while (flow.pages.length < SERVICES_PAGES) flow.newPage();
  if (flow.pages.length !== SERVICES_PAGES) throw new Error(`The sample services agreement has ${flow.pages.length} pages.`);

  const widgets: Widget[] = [];
  const [width, height] = A4;
  flow.pages.forEach((page, index) => {
    const number = index + 1;
    centredAt(page, `Page ${number} of ${SERVICES_PAGES}`, regular, 9, width / 2, 30);
    widgets.push(
      widget(`client-initials-p${number}`, 'initials', 'Client', number, 64, height - 92, 64, 30, true, 'Client initials'),
      widget(`provider-initials-p${number}`, 'initials', 'Provider', number, width - 128, height - 92, 64, 30, true, 'Provider initials'),
    );
  });

  // The flow now stands at the top of the last page, which holds only the signatures.
  const last = flow.page;
  flow.line('SIGNATURES', heading);
  flow.paragraph(SERVICES_WITNESS, body);
  const column = (width - 128 - 24) / 2;
  const columns: Array<[string, string, number]> = [
    ['Client', 'client', 64],
    ['Provider', 'provider', 64 + column + 24],
  ];
  for (const [role, prefix, x] of columns) {
    last.drawText(role.toUpperCase(), { x, y: height - 232, size: 10, font: bold });
    widgets.push(
      widget(`${prefix}-signature`, 'signature', role, SERVICES_PAGES, x, 244, column, 52, true, 'Signature'),
      widget(`${prefix}-name`, 'name', role, SERVICES_PAGES, x, 320, column, 20, true, 'Name'),
      widget(`${prefix}-email`, 'email', role, SERVICES_PAGES, x, 364, column, 20, true, 'E-mail'),
      widget(`${prefix}-date`, 'date', role, SERVICES_PAGES, x, 408, 140, 20, true, 'Date'),
    );
  }
  for (const field of widgets) drawGuide(flow.pages[field.page - 1], field, regular);
  return { name: 'Master services agreement (sample, 50 pages)', pdf: await save(doc), roles: ['Client', 'Provider'], widgets };
}

async function newDocument(title: string): Promise<{ doc: PDFDocument; regular: PDFFont; bold: PDFFont }> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(title);
  doc.setCreator('Sample template');
  doc.setProducer('pdf-lib');
  doc.setCreationDate(SAMPLE_DATE);
  doc.setModificationDate(SAMPLE_DATE);
  const [regular, bold] = await Promise.all([doc.embedFont(StandardFonts.TimesRoman), doc.embedFont(StandardFonts.TimesRomanBold)]);
  return { doc, regular, bold };
}

function save(doc: PDFDocument): Promise<Uint8Array> {
  return doc.save();
}

function widget(
  id: string,
  type: WidgetType,
  role: string,
  page: number,
  x: number,
  y: number,
  width: number,
  height: number,
  required: boolean,
  label: string,
): Widget {
  return { id, type, role, page, x, y, width, height, required, label };
}

/** Where a widget goes, as printed on the form: a box for initials and checkboxes, else a line with its label. */
function drawGuide(page: PDFPage, field: Widget, font: PDFFont): void {
  const pageHeight = page.getHeight();
  const bottom = pageHeight - field.y - field.height;
  if (field.type === 'checkbox' || field.type === 'initials') {
    page.drawRectangle({ x: field.x, y: bottom, width: field.width, height: field.height, borderColor: GUIDE, borderWidth: 0.75 });
    if (field.type === 'checkbox') page.drawText(field.label ?? '', { x: field.x + field.width + 5, y: bottom + 2.5, size: 8.5, font });
    else centredAt(page, field.label ?? '', font, 6.5, field.x + field.width / 2, bottom - 8, GREY);
    return;
  }
  page.drawLine({ start: { x: field.x, y: bottom }, end: { x: field.x + field.width, y: bottom }, thickness: 0.6, color: GUIDE });
  page.drawText(field.label ?? '', { x: field.x, y: bottom - 9, size: 7, font, color: GREY });
}

function centred(flow: TextFlow, text: string, font: PDFFont, size: number): void {
  flow.advance({ font, size });
  centredAt(flow.page, text, font, size, flow.margins.left + flow.width / 2, flow.y);
}

function centredAt(page: PDFPage, text: string, font: PDFFont, size: number, x: number, y: number, color = rgb(0, 0, 0)): void {
  page.drawText(text, { x: x - font.widthOfTextAtSize(text, size) / 2, y, size, font, color });
}
