import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PDFDocument, PDFHexString, PDFNumber, PDFString } from 'pdf-lib';
import { key, refused, threads, usePdfThreads } from '../../../test/fixtures/pdf-intake';
import { pdfText, run, tempDir, writeTemp } from '../../../test/pdf-tools';
import { buildSampleNda } from '../samples';
import { layered, onePage, rawPdf, streamBody } from './hostile-pdfs';

describe('PDF intake', () => {
  usePdfThreads();

  describe('refusals', () => {
    it('refuses optional content that is off by default, off by use, or shown by a visibility expression', async () => {
      await refused(
        threads.intake(layered('/D << /OFF [5 0 R] >>')),
        /^The PDF has hidden optional content: some layers are off by default/,
      );
      await refused(threads.intake(layered('/D << /BaseState /OFF >>')), /hidden optional content: layers are off by default/);
      const printRule = '/D << /AS [<< /Event /Print /OCGs [5 0 R] /Category [/Print] >>] >>';
      const printedOff = '<< /Type /OCG /Name (Layer) /Usage << /Print << /PrintState /OFF >> >> >>';
      await refused(
        threads.intake(layered(printRule, { group: printedOff })),
        /hidden optional content: a layer turns off by use \(\/AS, Print\)/,
      );
      const languageRule = '/D << /AS [<< /Event /View /OCGs [5 0 R] /Category [/Language] >>] >>';
      const byLanguage = '<< /Type /OCG /Name (Layer) /Usage << /Language << /Lang (de-DE) /Preferred /ON >> >> >>';
      await refused(threads.intake(layered(languageRule, { group: byLanguage })), /a layer turns off by use \(\/AS, Language\)/);
      const expression = layered('/D << >>', { membership: '<< /Type /OCMD /VE [/Not 5 0 R] >>' });
      await refused(threads.intake(expression), /hidden optional content: content is shown by a visibility expression/);
      const anyOff = layered('/D << >>', { membership: '<< /Type /OCMD /OCGs [5 0 R] /P /AnyOff >>' });
      await refused(threads.intake(anyOff), /hidden optional content: content is shown only while layers are off/);

      // On everywhere: a plain layer, and the /AS rules watermark tools write with every state on.
      const allOn = await threads.intake(layered('/D << /ON [5 0 R] >>'));
      assert.ok((await pdfText(allOn.pdf)).includes('Layer text'), 'layers on by default stay, with their content');
      const printedOn = '<< /Type /OCG /Name (Layer) /Usage << /Print << /PrintState /ON >> /View << /ViewState /ON >> >> >>';
      assert.equal((await threads.intake(layered(printRule, { group: printedOn }))).pages.length, 1);
    });

    it('refuses an encrypted PDF, with or without a password to open it', async () => {
      const nda = await buildSampleNda();
      const directory = await tempDir();
      const plain = await writeTemp(`plain-${Date.now()}.pdf`, nda.pdf);
      for (const user of ['secret', '']) {
        const encrypted = path.join(directory, `encrypted-${user || 'empty'}.pdf`);
        const qpdf = await run('qpdf', ['--encrypt', user, 'owner-secret', '256', '--', plain, encrypted]);
        assert.equal(qpdf.code, 0, qpdf.stderr);
        const bytes = new Uint8Array(await fs.readFile(encrypted));
        await refused(threads.intake(bytes), /^The PDF is encrypted; upload it without a password\.$/);
      }
    });

    it('refuses a PDF that already carries a signature, wherever it shows, and takes an empty signature field', async () => {
      const signed = /already signed PDFs cannot be sealed again without breaking their signature/;
      // Each case is caught by one check alone: the form's field tree, a page's widgets, /SigFlags, /Perms.
      await refused(threads.intake(await signatureField({ signed: true, onPage: false })), signed);
      await refused(threads.intake(await signatureField({ signed: true, inForm: false })), signed);
      await refused(threads.intake(await signatureField({ signed: false, sigFlags: 3 })), signed);
      await refused(threads.intake(await signatureField({ signed: false, certified: true })), signed);
      const empty = await threads.intake(await signatureField({ signed: false }));
      assert.deepEqual(empty.removed, ['form_fields']);
    });

    it('refuses what is not a PDF, and a damaged compressed stream', async () => {
      await refused(threads.intake(new TextEncoder().encode('hello, not a PDF')), /^The file is not a readable PDF\.$/);
      const damaged = rawPdf([
        ...onePage('BT ET', '/Thumb 5 0 R '),
        streamBody('/Filter /FlateDecode', Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff, 0xff])),
      ]);
      await refused(threads.intake(damaged), /^The PDF has a damaged compressed stream\.$/);
    });
  });
});

/** A page with a signature field, signed (a /V) or not, listed in the form and on the page or not, with /SigFlags or /Perms /DocMDP. */
async function signatureField(options: {
  signed: boolean;
  inForm?: boolean;
  onPage?: boolean;
  sigFlags?: number;
  certified?: boolean;
}): Promise<Uint8Array> {
  const { signed, inForm = true, onPage = true, sigFlags = 0, certified = false } = options;
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const context = doc.context;
  const signature = context.register(
    context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'adbe.pkcs7.detached',
      ByteRange: [0, 100, 200, 300],
      Contents: PDFHexString.of('00'.repeat(64)),
    }),
  );
  const field = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      T: PDFString.of('Signature1'),
      Rect: [50, 50, 250, 100],
      F: 4,
      ...(onPage ? { P: page.ref } : {}),
      ...(signed ? { V: signature } : {}),
    }),
  );
  if (onPage) page.node.addAnnot(field);
  doc.catalog.set(key('AcroForm'), context.obj({ Fields: inForm ? [field] : [], SigFlags: PDFNumber.of(sigFlags) }));
  if (certified) doc.catalog.set(key('Perms'), context.obj({ DocMDP: signature }));
  return doc.save();
}
