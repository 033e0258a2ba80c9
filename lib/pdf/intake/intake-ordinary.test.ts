import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { latin1, pageSizes, render, threads, usePdfThreads } from '../../../test/fixtures/pdf-intake';
import { pdfText, qpdfCheck } from '../../../test/pdf-tools';
import { buildSampleNda } from '../samples';
import { onePage, rawPdf, streamBody } from './hostile-pdfs';

describe('PDF intake', () => {
  usePdfThreads();

  describe('an ordinary PDF', () => {
    it('passes with the same content and page sizes, in a classic-xref PDF that qpdf accepts', async () => {
      const nda = await buildSampleNda();
      assert.ok(latin1(nda.pdf).includes('/ObjStm'), 'the sample has object streams');
      const result = await threads.intake(nda.pdf);
      assert.deepEqual(result.removed, []);
      assert.deepEqual(result.pages, [{ width: 612, height: 792 }]);
      assert.deepEqual(await pageSizes(result.pdf), await pageSizes(nda.pdf));
      assert.equal(await pdfText(result.pdf), await pdfText(nda.pdf));
      assert.ok((await render(result.pdf)).equals(await render(nda.pdf)), 'renders the same pixels');
      const raw = latin1(result.pdf);
      assert.equal(raw.includes('/ObjStm'), false);
      assert.equal(raw.includes('/XRef'), false);
      assert.ok(/\nxref\n0 \d+\n0000000000 65535 f/.test(raw), 'a classic cross-reference table');
      assert.ok(/\ntrailer\n<<[\s\S]*\/Root [\s\S]*>>\s*startxref\n\d+\n%%EOF\n?$/.test(raw), 'a classic trailer ends the file');
      const check = await qpdfCheck(result.pdf);
      assert.equal(check.code, 0, check.stdout + check.stderr);
      assert.match(check.stdout, /No syntax or stream encoding errors found/);
    });

    it('takes a stream whose /Length is wrong and whose deflate data has garbage after its end', async () => {
      const content = zlib.deflateSync(Buffer.from('BT /F1 24 Tf 72 700 Td (Still readable) Tj ET'));
      const data = Buffer.concat([content, Buffer.from('trailing garbage after the deflate end')]);
      const bodies = onePage('');
      bodies[3] = streamBody('/Filter /FlateDecode', data, data.length + 500);
      const result = await threads.intake(rawPdf(bodies));
      assert.ok((await pdfText(result.pdf)).includes('Still readable'), 'the content is kept');
    });
  });
});
