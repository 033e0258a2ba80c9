import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { annotations, refused, render, threads, usePdfThreads } from '../../../test/fixtures/pdf-intake';
import { pdfText } from '../../../test/pdf-tools';
import { onePage, rawPdf, streamBody } from './hostile-pdfs';

describe('PDF intake', () => {
  usePdfThreads();

  describe('forms', () => {
    it('flattens a turned widget where a reader draws it (its /Matrix and /BBox fitted to /Rect)', async () => {
      const input = formPdf(
        '/FT /Tx /T (turned) /V (x) /Rect [50 500 250 524] /MK << /R 90 >> /AP << /N 6 0 R >>',
        streamBody(
          '/Type /XObject /Subtype /Form /BBox [0 0 24 200] /Matrix [0 1 -1 0 0 0]',
          Buffer.from('0 0 1 rg 2 2 20 196 re f 1 0 0 rg 2 150 20 48 re f'),
        ),
      );
      const result = await threads.intake(input);
      assert.deepEqual(result.removed, ['form_fields']);
      assert.deepEqual(annotations(await PDFDocument.load(result.pdf), 0), []);
      // pdf-lib's form.flatten() draws this one 200 points to the left: poppler's rendering of the field tells.
      assert.ok((await render(result.pdf)).equals(await render(input)), 'the flattened page renders as the form did');
    });

    it('gives a field without an appearance one from its value, in a Unicode font where Helvetica cannot', async () => {
      const cyrillic = formPdf(
        `/FT /Tx /T (city) /V <FEFF${Buffer.from('Киев', 'utf16le').swap16().toString('hex')}> /DA (/Helv 12 Tf 0 g) /Rect [50 500 250 524]`,
      );
      const result = await threads.intake(cyrillic);
      assert.ok((await pdfText(result.pdf)).includes('Киев'), 'the value is drawn');
      const japanese = formPdf(
        `/FT /Tx /T (city) /V <FEFF${Buffer.from('東京', 'utf16le').swap16().toString('hex')}> /DA (/Helv 12 Tf 0 g) /Rect [50 500 250 524]`,
      );
      await refused(
        threads.intake(japanese),
        /^The PDF's form field "city" has no appearance and its value uses characters \("東"\) that cannot be drawn here/,
      );
    });
  });
});

/** Two pages (the second cropped and turned) carrying each kind of active content the intake strips. */
/** One page with a form of one widget (object 5, these entries) and, as object 6, its appearance if given. */
function formPdf(widget: string, appearance?: Buffer): Buffer {
  const bodies = onePage('BT /F1 12 Tf 72 720 Td (Form) Tj ET', '/Annots [5 0 R] ');
  bodies[0] =
    '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >>';
  return rawPdf([...bodies, `<< /Type /Annot /Subtype /Widget /F 4 /P 3 0 R ${widget} >>`, ...(appearance ? [appearance] : [])]);
}
