import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { before, describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { pdfText, qpdfCheck } from '../../test/pdf-tools';
import { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from './samples';
import { WIDGET_TYPES, type Widget } from './widgets';

function summary(widgets: Widget[]) {
  return widgets.map((widget) => `${widget.id} ${widget.type} ${widget.role} p${widget.page} ${widget.required ? 'required' : 'optional'}`);
}

async function assertWellFormed(template: SampleTemplate): Promise<PDFDocument> {
  const doc = await PDFDocument.load(template.pdf);
  assert.equal(new Set(template.widgets.map((widget) => widget.id)).size, template.widgets.length, 'widget ids are unique');
  for (const widget of template.widgets) {
    assert.ok(WIDGET_TYPES.includes(widget.type));
    assert.ok(template.roles.includes(widget.role));
    const { width, height } = doc.getPage(widget.page - 1).getSize();
    assert.ok(
      widget.x >= 0 && widget.y >= 0 && widget.x + widget.width <= width && widget.y + widget.height <= height,
      `${widget.id} lies on its page`,
    );
  }
  assert.equal((await qpdfCheck(template.pdf)).code, 0);
  return doc;
}

describe('buildSampleNda', () => {
  let nda: SampleTemplate;
  before(async () => {
    nda = await buildSampleNda();
  });

  it('is one page of NDA text with the two roles and their widgets', async () => {
    const doc = await assertWellFormed(nda);
    assert.equal(doc.getPageCount(), 1);
    assert.deepEqual(nda.roles, ['Disclosing Party', 'Receiving Party']);
    assert.deepEqual(summary(nda.widgets), [
      'disclosing-signature signature Disclosing Party p1 required',
      'disclosing-name name Disclosing Party p1 required',
      'disclosing-date date Disclosing Party p1 required',
      'receiving-signature signature Receiving Party p1 required',
      'receiving-name name Receiving Party p1 required',
      'receiving-title text Receiving Party p1 required',
      'receiving-date date Receiving Party p1 required',
      'receiving-copy checkbox Receiving Party p1 optional',
      'receiving-term dropdown Receiving Party p1 optional',
    ]);
    assert.deepEqual(nda.widgets.find((widget) => widget.id === 'receiving-term')!.options, ['1 year', '2 years', '3 years']);
    assert.equal(nda.widgets.find((widget) => widget.id === 'receiving-title')!.label, 'Title');
    assert.equal(nda.widgets.find((widget) => widget.id === 'receiving-copy')!.label, 'Send me a copy');
    const text = await pdfText(nda.pdf);
    for (const expected of [
      'MUTUAL NON-DISCLOSURE AGREEMENT',
      'Confidential Information',
      'DISCLOSING PARTY',
      'RECEIVING PARTY',
      'Send me a copy',
    ]) {
      assert.ok(text.includes(expected), expected);
    }
  });

  it('comes out byte for byte the same on every build', async () => {
    const again = await buildSampleNda();
    assert.equal(sha256(again.pdf), sha256(nda.pdf));
  });
});

describe('buildSampleServicesAgreement', () => {
  let agreement: SampleTemplate;
  before(async () => {
    agreement = await buildSampleServicesAgreement();
  });

  it('has exactly 50 numbered pages of sections', async () => {
    const doc = await assertWellFormed(agreement);
    assert.equal(doc.getPageCount(), 50);
    const text = await pdfText(agreement.pdf);
    const pages = text.split('\f').filter((page) => page.trim());
    assert.equal(pages.length, 50);
    for (const [index, page] of pages.entries()) assert.ok(page.includes(`Page ${index + 1} of 50`), `page ${index + 1} is numbered`);
    for (const section of ['1. DEFINITIONS AND INTERPRETATION', '15. CONFIDENTIALITY', '21. LIMITATION OF LIABILITY', 'SIGNATURES']) {
      assert.ok(text.includes(section), section);
    }
    assert.ok(pages[48].split('\n').filter((line) => line.trim()).length > 30, 'page 49 is full of text');
  });

  it('has initials for both roles on every page and the signature block on page 50', () => {
    assert.deepEqual(agreement.roles, ['Client', 'Provider']);
    for (const role of ['client', 'provider']) {
      for (let page = 1; page <= 50; page += 1) {
        const initials = agreement.widgets.find((widget) => widget.id === `${role}-initials-p${page}`);
        assert.ok(
          initials && initials.type === 'initials' && initials.page === page && initials.required,
          `${role} initials on page ${page}`,
        );
      }
      const last = agreement.widgets.filter((widget) => widget.id.startsWith(`${role}-`) && widget.type !== 'initials');
      assert.deepEqual(
        summary(last).map((line) => line.replace(/ (Client|Provider) /, ' ')),
        [
          `${role}-signature signature p50 required`,
          `${role}-name name p50 required`,
          `${role}-email email p50 required`,
          `${role}-date date p50 required`,
        ],
      );
    }
    assert.equal(agreement.widgets.length, 2 * 50 + 2 * 4);
  });

  it('comes out byte for byte the same on every build', async () => {
    const again = await buildSampleServicesAgreement();
    assert.equal(sha256(again.pdf), sha256(agreement.pdf));
  });
});

function sha256(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}
