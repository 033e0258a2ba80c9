import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { degrees, PDFDocument } from 'pdf-lib';
import { blankPng, signaturePng, TINY_JPEG } from '../../test/images';
import { inkIn, pdfImages, pdfText, pdfWords, qpdfCheck } from '../../test/pdf-tools';
import { PdfError } from './errors';
import { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from './samples';
import { initialsOf, type StampInput, stampWidgets } from './stamp';
import type { Widget } from './widgets';

const signedAt = new Date('2026-03-04T23:30:00Z');
const signature = signaturePng(160, 50);

function forRole(template: SampleTemplate, role: string): Widget[] {
  return template.widgets.filter((widget) => widget.role === role);
}

function input(widgets: Widget[], overrides: Partial<StampInput> = {}): StampInput {
  return { widgets, signer: { name: 'Ann Lee', email: 'ann@example.com' }, signedAt, signatureImage: signature, values: {}, ...overrides };
}

async function rejection(promise: Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof PdfError && error.reason === reason);
}

describe('stampWidgets on the sample NDA', () => {
  let nda: SampleTemplate;
  before(async () => {
    nda = await buildSampleNda();
  });

  it('draws signature, name, date, a text value and a ticked checkbox for the Receiving Party', async () => {
    const widgets = forRole(nda, 'Receiving Party');
    const stamped = await stampWidgets(
      nda.pdf,
      input(widgets, {
        signer: { name: 'Zoë Šimůnek', email: 'zoe@example.com' },
        values: { 'receiving-title': 'Chief Executive Officer', 'receiving-copy': true },
      }),
    );
    const text = await pdfText(stamped);
    assert.match(text, /Zoë Šimůnek/);
    assert.match(text, /Chief Executive Officer/);
    assert.match(text, /2026-03-04/, 'the date is signedAt in UTC');
    const images = (await pdfImages(stamped)).filter((image) => image.type === 'image');
    assert.deepEqual(
      images.map((image) => [image.page, image.width, image.height]),
      [[1, 160, 50]],
    );
    const checkbox = widgets.find((widget) => widget.type === 'checkbox')!;
    assert.ok((await inkIn(stamped, 1, inset(checkbox, 2))) > 0.05, 'a tick is drawn inside the checkbox');
    assert.equal((await qpdfCheck(stamped)).code, 0);
  });

  it('draws nothing for an optional checkbox that is false or has no value', async () => {
    const widgets = forRole(nda, 'Receiving Party');
    const checkbox = widgets.find((widget) => widget.type === 'checkbox')!;
    const cases: Array<Record<string, string | boolean>> = [
      { 'receiving-title': 'CTO', 'receiving-copy': false },
      { 'receiving-title': 'CTO' },
    ];
    for (const values of cases) {
      const stamped = await stampWidgets(nda.pdf, input(widgets, { values }));
      assert.equal(await inkIn(stamped, 1, inset(checkbox, 2)), 0);
    }
  });

  it('draws the Disclosing Party with a JPEG signature and leaves the other role alone', async () => {
    const stamped = await stampWidgets(nda.pdf, input(forRole(nda, 'Disclosing Party'), { signatureImage: TINY_JPEG }));
    const images = (await pdfImages(stamped)).filter((image) => image.type === 'image');
    assert.deepEqual(
      images.map((image) => [image.width, image.height]),
      [[8, 4]],
    );
    const words = await pdfWords(stamped);
    const receivingName = nda.widgets.find((widget) => widget.id === 'receiving-name')!;
    assert.ok(words.some((word) => word.text === 'Ann'));
    assert.ok(!words.some((word) => overlaps(word, receivingName)), "nothing lands in the other role's widgets");
  });

  it('draws a dropdown choice and an optional text field left empty draws nothing', async () => {
    const dropdown: Widget = {
      id: 'plan',
      type: 'dropdown',
      role: 'Receiving Party',
      page: 1,
      x: 54,
      y: 500,
      width: 150,
      height: 18,
      required: true,
      options: ['Basic', 'Premium'],
    };
    const note: Widget = {
      id: 'note',
      type: 'text',
      role: 'Receiving Party',
      page: 1,
      x: 220,
      y: 500,
      width: 150,
      height: 18,
      required: false,
    };
    const stamped = await stampWidgets(nda.pdf, input([dropdown, note], { values: { plan: 'Premium' } }));
    const words = await pdfWords(stamped);
    assert.ok(words.some((word) => word.text === 'Premium' && inside(word, dropdown)));
    assert.ok(!words.some((word) => overlaps(word, note)));
    assert.equal(await inkIn(stamped, 1, note), 0);
  });

  it('draws a radio group as its options one under another, the chosen one’s ring filled', async () => {
    const radio: Widget = {
      id: 'billing',
      type: 'radio',
      role: 'Receiving Party',
      page: 1,
      x: 54,
      y: 480,
      width: 150,
      height: 54,
      required: true,
      options: ['Yearly', 'Monthly', 'Weekly'],
    };
    const stamped = await stampWidgets(nda.pdf, input([radio], { values: { billing: 'Monthly' } }));
    const words = (await pdfWords(stamped)).filter((word) => inside(word, radio));
    assert.deepEqual(
      words.map((word) => word.text),
      ['Yearly', 'Monthly', 'Weekly'],
    );
    // Each row's ring, a square at the row's left: the chosen one is filled, the others only outlined.
    const ring = (row: number) => ({ x: radio.x + 1, y: radio.y + row * 18 + 2, width: 14, height: 14 });
    const [yearly, monthly, weekly] = await Promise.all([0, 1, 2].map((row) => inkIn(stamped, 1, ring(row))));
    assert.ok(yearly > 0 && weekly > 0, 'every option has its ring');
    assert.ok(monthly > yearly * 1.5 && monthly > weekly * 1.5, `the chosen ring is filled (${yearly}, ${monthly}, ${weekly})`);
    await rejection(stampWidgets(nda.pdf, input([radio], { values: { billing: 'Daily' } })), 'invalid_value');
    await rejection(stampWidgets(nda.pdf, input([radio], { values: {} })), 'unfilled_fields');
  });

  it('refuses a dropdown value that is not one of its options, and a checkbox given a string', async () => {
    const dropdown: Widget = {
      id: 'plan',
      type: 'dropdown',
      role: 'R',
      page: 1,
      x: 54,
      y: 500,
      width: 150,
      height: 18,
      required: false,
      options: ['Basic'],
    };
    await rejection(stampWidgets(nda.pdf, input([dropdown], { values: { plan: 'Gold' } })), 'invalid_value');
    const checkbox: Widget = { ...dropdown, id: 'agree', type: 'checkbox', options: undefined };
    await rejection(stampWidgets(nda.pdf, input([checkbox], { values: { agree: 'yes' } })), 'invalid_value');
  });

  it('refuses required widgets without a value (unfilled_fields)', async () => {
    await rejection(stampWidgets(nda.pdf, input(forRole(nda, 'Receiving Party'))), 'unfilled_fields');
  });

  it('refuses a signature widget without a readable signature image (missing_appearance)', async () => {
    const widgets = forRole(nda, 'Disclosing Party');
    await rejection(stampWidgets(nda.pdf, input(widgets, { signatureImage: undefined })), 'missing_appearance');
    await rejection(stampWidgets(nda.pdf, input(widgets, { signatureImage: signature.subarray(0, 50) })), 'missing_appearance');
  });

  it('refuses a signature image past the limits before pdf-lib decodes it (missing_appearance)', async () => {
    const widgets = forRole(nda, 'Disclosing Party');
    await rejection(
      stampWidgets(nda.pdf, input(widgets, { signatureImage: blankPng(5000, 5000, { bitDepth: 16 }) })),
      'missing_appearance',
    );
  });

  it('refuses a widget on a page the PDF does not have, or off the page', async () => {
    const name = nda.widgets.find((widget) => widget.id === 'disclosing-name')!;
    await rejection(stampWidgets(nda.pdf, input([{ ...name, page: 2 }])), 'widget_page');
    await rejection(stampWidgets(nda.pdf, input([{ ...name, page: 0 }])), 'widget_page');
    await rejection(stampWidgets(nda.pdf, input([{ ...name, y: 780 }])), 'widget_bounds');
  });

  it('refuses a file that is not a PDF', async () => {
    await rejection(stampWidgets(Buffer.from('%PDF-1.7 nothing else'), input([])), 'unreadable_pdf');
  });
});

describe('stampWidgets fits text to its box', () => {
  let nda: SampleTemplate;
  before(async () => {
    nda = await buildSampleNda();
  });

  it('cuts a very long name with an ellipsis and keeps it inside the box', async () => {
    const box: Widget = { id: 'n', type: 'name', role: 'R', page: 1, x: 100, y: 480, width: 100, height: 20, required: true };
    const name = 'Maximiliana Alexandra Wilhelmina von Hohenzollern-Sigmaringen und Liechtenstein';
    const stamped = await stampWidgets(nda.pdf, input([box], { signer: { name, email: 'm@example.com' } }));
    const words = (await pdfWords(stamped)).filter((word) => word.yMin > 470 && word.yMax < 510);
    assert.ok(words.length > 0);
    for (const word of words) assert.ok(inside(word, box), `${word.text} ${JSON.stringify(word)} stays in the box`);
    assert.ok(words.at(-1)!.text.endsWith('…'));
    assert.equal(await inkIn(stamped, 1, { x: 201, y: 476, width: 60, height: 28 }), 0, 'no ink right of the box');
    assert.equal(await inkIn(stamped, 1, { x: 100, y: 470, width: 100, height: 9 }), 0, 'no ink above the box');
    assert.equal(await inkIn(stamped, 1, { x: 100, y: 501, width: 100, height: 9 }), 0, 'no ink below the box');
    assert.ok((await inkIn(stamped, 1, box)) > 0.01, 'ink inside the box');
  });

  it('shrinks a name that fits at a smaller size rather than cutting it', async () => {
    const box: Widget = { id: 'n', type: 'name', role: 'R', page: 1, x: 100, y: 480, width: 150, height: 20, required: true };
    const name = 'Bartholomew Featherstonehaugh';
    const stamped = await stampWidgets(nda.pdf, input([box], { signer: { name, email: 'b@example.com' } }));
    const words = (await pdfWords(stamped)).filter((word) => inside(word, box));
    assert.deepEqual(
      words.map((word) => word.text),
      ['Bartholomew', 'Featherstonehaugh'],
    );
    const height = words[0].yMax - words[0].yMin;
    assert.ok(height < 12, `font shrunk (${height} points high)`);
  });

  it('writes initials as the letters of the name, Unicode-safe', () => {
    assert.equal(initialsOf('Ann Lee'), 'AL');
    assert.equal(initialsOf('  zoë   šimůnek '), 'ZŠ');
    assert.equal(initialsOf('Jean-Luc Picard'), 'JP');
    assert.equal(initialsOf('O\u0301scar Núñez'), 'ÓN', 'a decomposed accent stays with its letter');
  });

  it('places widgets on a rotated page where the page shows them', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([400, 600]).setRotation(degrees(90));
    const pdf = await doc.save();
    // Shown landscape (600 x 400): a box near the shown top-left corner.
    const box: Widget = { id: 'n', type: 'name', role: 'R', page: 1, x: 20, y: 30, width: 200, height: 24, required: true };
    const stamped = await stampWidgets(pdf, input([box]));
    const words = await pdfWords(stamped);
    assert.deepEqual(
      words.map((word) => word.text),
      ['Ann', 'Lee'],
    );
    for (const word of words) assert.ok(inside(word, box), JSON.stringify(word));
  });
});

describe('stampWidgets on the 50-page services agreement', () => {
  let agreement: SampleTemplate;
  before(async () => {
    agreement = await buildSampleServicesAgreement();
  });

  it('initials every page and signs page 50 for the Client', async () => {
    const stamped = await stampWidgets(agreement.pdf, input(forRole(agreement, 'Client')));
    const words = await pdfWords(stamped);
    const initials = words.filter((word) => word.text === 'AL');
    assert.deepEqual(
      initials.map((word) => word.page),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    for (const word of initials)
      assert.ok(inside(word, agreement.widgets.find((widget) => widget.id === `client-initials-p${word.page}`)!));
    const last = await pdfText(stamped, { first: 50, last: 50 });
    for (const expected of ['Ann Lee', 'ann@example.com', '2026-03-04']) assert.ok(last.includes(expected), expected);
    const images = (await pdfImages(stamped)).filter((image) => image.type === 'image');
    assert.deepEqual(
      images.map((image) => image.page),
      [50],
    );
    assert.equal((await qpdfCheck(stamped)).code, 0);
  });

  it('draws an initials image on every page when one is given, embedded once', async () => {
    const stamped = await stampWidgets(agreement.pdf, input(forRole(agreement, 'Provider'), { initialsImage: TINY_JPEG }));
    const images = (await pdfImages(stamped)).filter((image) => image.type === 'image');
    const jpegs = images.filter((image) => image.width === 8);
    assert.equal(jpegs.length, 50);
    const doc = await PDFDocument.load(stamped);
    const jpegObjects = doc.context.enumerateIndirectObjects().filter(([, object]) => object.toString().includes('/DCTDecode'));
    assert.equal(jpegObjects.length, 1);
  });
});

function inset(box: Widget, by: number) {
  return { x: box.x + by, y: box.y + by, width: box.width - 2 * by, height: box.height - 2 * by };
}

/**
 * Whether a word lies within a widget: horizontally to the half point; vertically its middle, as
 * pdftotext's word height comes from the font's bounding box rather than the glyphs' ink.
 */
function inside(word: { xMin: number; yMin: number; xMax: number; yMax: number }, box: Widget): boolean {
  const middle = (word.yMin + word.yMax) / 2;
  return word.xMin >= box.x - 0.5 && word.xMax <= box.x + box.width + 0.5 && middle > box.y && middle < box.y + box.height;
}

function overlaps(word: { xMin: number; yMin: number; xMax: number; yMax: number }, box: Widget): boolean {
  return word.xMin < box.x + box.width && word.xMax > box.x && word.yMin < box.y + box.height && word.yMax > box.y;
}
