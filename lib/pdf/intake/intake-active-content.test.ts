import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { annotations, key, latin1, pageSizes, threads, usePdfThreads } from '../../../test/fixtures/pdf-intake';
import { pdfText, qpdfCheck } from '../../../test/pdf-tools';
import { hostileFeatures } from './hostile-pdfs';
import type { NormalisedPdf } from './index';

describe('PDF intake', () => {
  usePdfThreads();

  describe('active and dynamic content', () => {
    let input: Uint8Array;
    let result: NormalisedPdf;
    let output: PDFDocument;
    before(async () => {
      input = await hostileFeatures();
      result = await threads.intake(input);
      output = await PDFDocument.load(result.pdf);
    });

    it('starts from a PDF that carries each of them', async () => {
      const doc = await PDFDocument.load(input);
      const names = doc.catalog.lookup(key('Names'), PDFDict);
      assert.ok(doc.catalog.has(key('OpenAction')), 'an open action');
      assert.ok(names.has(key('JavaScript')) && names.has(key('EmbeddedFiles')), 'document JavaScript and an embedded file');
      assert.ok(doc.catalog.lookup(key('AcroForm'), PDFDict).has(key('XFA')), 'XFA');
      assert.ok(doc.getPage(0).node.has(key('AA')), 'a page action');
      assert.deepEqual(annotations(doc, 0).map(describeAnnotation), [
        'Widget',
        'Link Launch',
        'Link URI https://example.com/terms',
        'Link URI javascript:app.alert(1)',
        'Link GoTo',
        'FileAttachment',
        'FreeText',
      ]);
    });

    it('comes back without them, and says what it removed', () => {
      assert.deepEqual(result.removed, [
        'actions',
        'additional_actions',
        'embedded_files',
        'file_attachments',
        'form_fields',
        'hidden_annotations',
        'javascript',
        'open_action',
        'xfa',
      ]);
      const { catalog } = output;
      for (const entry of ['OpenAction', 'AA', 'AcroForm', 'Collection']) assert.equal(catalog.has(key(entry)), false, entry);
      const names = catalog.lookup(key('Names'));
      if (names instanceof PDFDict) {
        assert.equal(names.has(key('JavaScript')), false);
        assert.equal(names.has(key('EmbeddedFiles')), false);
      }
      assert.equal(output.getPage(0).node.has(key('AA')), false);
      const outline = catalog.lookup(key('Outlines'), PDFDict).lookup(key('First'), PDFDict);
      assert.equal(outline.has(key('A')), false, 'the bookmark stays, without its script');
      // Plain links stay; the launch and the javascript: link lose their action; the rest goes.
      assert.deepEqual(annotations(output, 0).map(describeAnnotation), ['Link', 'Link URI https://example.com/terms', 'Link', 'Link GoTo']);
      const raw = latin1(result.pdf);
      for (const marker of [
        '/JavaScript',
        '/JS',
        'app.alert',
        '/Launch',
        'calc.exe',
        '/XFA',
        '/EmbeddedFile',
        '/FileAttachment',
        '/Widget',
      ]) {
        assert.equal(raw.includes(marker), false, `${marker} is gone from the file`);
      }
    });

    it('keeps the pages, their sizes and what they show (the field value flattened into the page)', async () => {
      assert.equal(output.getPageCount(), 2);
      assert.deepEqual(result.pages, [
        { width: 500, height: 700 },
        { width: 400, height: 600 },
      ]);
      assert.deepEqual(await pageSizes(result.pdf), await pageSizes(input));
      const text = await pdfText(result.pdf);
      for (const expected of ['Visible clause', 'Jane Doe', 'Second page']) assert.ok(text.includes(expected), expected);
      assert.equal(text.includes('print only'), false);
      assert.equal((await qpdfCheck(result.pdf)).code, 0);
    });
  });
});

function describeAnnotation(annot: PDFDict): string {
  const subtype = annot.lookup(key('Subtype'), PDFName).decodeText();
  const action = annot.lookup(key('A'));
  if (!(action instanceof PDFDict)) return subtype;
  const kind = action.lookup(key('S'), PDFName).decodeText();
  const uri = action.lookup(key('URI'));
  return [subtype, kind, uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : undefined].filter(Boolean).join(' ');
}
