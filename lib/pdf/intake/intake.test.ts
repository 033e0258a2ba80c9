import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString } from 'pdf-lib';
import { pdfText, qpdfCheck, run, tempDir, writeTemp } from '../../../test/pdf-tools';
import { PdfError } from '../errors';
import { displayedSize } from '../geometry';
import { buildSampleNda } from '../samples';
import {
  deeplyNested,
  hostileFeatures,
  layered,
  manyObjects,
  manyPages,
  objectStreamBomb,
  onePage,
  rawPdf,
  streamBody,
  zerosDeflated,
} from './hostile-pdfs';
import { createPdfThreads, type NormalisedPdf, type PdfThreads } from './index';

const MIB = 1024 * 1024;

/** Rejects with PdfError('invalid_pdf') whose message matches. */
async function refused(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PdfError, `a PdfError, not ${String(error)}`);
    assert.equal(error.reason, 'invalid_pdf');
    assert.match(error.message, message);
    return true;
  });
}

/** Refused as `refused` checks, within `withinMs` of the call. */
async function refusedWithin(task: () => Promise<unknown>, message: RegExp, withinMs: number): Promise<void> {
  const started = performance.now();
  await refused(task(), message);
  const ms = performance.now() - started;
  assert.ok(ms < withinMs, `refused in ${Math.round(ms)} ms (limit ${withinMs} ms)`);
}

/** Runs `task` and answers its duration and the longest gap between 20 ms ticks of this thread's event loop. */
async function timed<T>(task: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; ms: number; gap: number; ticks: number }> {
  let last = performance.now();
  let gap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    ticks++;
  }, 20);
  const started = performance.now();
  const [result] = await Promise.allSettled([task()]);
  const ms = performance.now() - started;
  clearInterval(timer);
  gap = Math.max(gap, performance.now() - last);
  return { result, ms, gap, ticks };
}

/** What zlib inflates these bytes to, counted chunk by chunk. */
function inflatedSize(data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let total = 0;
    zlib
      .createInflate()
      .on('data', (chunk: Buffer) => {
        total += chunk.length;
      })
      .on('end', () => resolve(total))
      .on('error', reject)
      .end(data);
  });
}

/** Page 1 rendered by pdftoppm in grey at 36 dpi: equal bytes mean equal pixels. */
function render(pdf: Uint8Array, page = 1): Promise<Buffer> {
  return writeTemp(`render-${Date.now()}-${Math.random()}.pdf`, pdf).then(
    (file) =>
      new Promise((resolve, reject) => {
        const args = ['-gray', '-r', '36', '-f', String(page), '-l', String(page), '-singlefile', file];
        execFile('pdftoppm', args, { encoding: 'buffer', maxBuffer: 64 * MIB }, (error, stdout) =>
          error ? reject(error) : resolve(stdout),
        );
      }),
  );
}

function latin1(pdf: Uint8Array): string {
  return Buffer.from(pdf).toString('latin1');
}

async function pageSizes(pdf: Uint8Array): Promise<Array<{ width: number; height: number }>> {
  return (await PDFDocument.load(pdf)).getPages().map((page) => displayedSize(page));
}

const key = (value: string) => PDFName.of(value);

describe('PDF intake', () => {
  let threads: PdfThreads;
  before(() => {
    threads = createPdfThreads({});
  });
  after(async () => {
    await threads.close();
  });

  describe('limits', () => {
    it('refuses an object-stream bomb at the inflate limit, fast, while this event loop keeps ticking', async () => {
      const bomb = objectStreamBomb(7, 300);
      assert.ok(bomb.length > 2 * MIB && bomb.length < 2.5 * MIB, `about 2 MB (${bomb.length} bytes)`);
      assert.equal(await inflatedSize(zerosDeflated(300)), 300 * MIB, 'each stream really inflates to 300 MiB');

      const { result, ms, gap, ticks } = await timed(() => threads.intake(bomb));
      assert.equal(result.status, 'rejected');
      await refused(Promise.reject((result as PromiseRejectedResult).reason), /^The PDF inflates to more than 256 MiB \(limit: 200 times/);
      assert.ok(ms < 5000, `refused in ${Math.round(ms)} ms`);
      assert.ok(gap < 200, `the event loop stalled for ${Math.round(gap)} ms`);
      assert.ok(ticks >= 3, `the interval fired ${ticks} times`);
    });

    it('refuses what inflates past 200 times its size before the cap, through a filter chain too', async () => {
      const small = createPdfThreads({ size: 1, limits: { maxInflatedBytes: 32 * MIB } });
      try {
        // 60 MiB of zeros as hex of deflate: a 124 KB file, so 200 times its size (23.7 MiB) binds before the cap.
        const hex = Buffer.from(zerosDeflated(60).toString('hex'));
        const chained = rawPdf([
          ...onePage('BT /F1 12 Tf 72 720 Td (Chain) Tj ET', '/Thumb 5 0 R '),
          streamBody('/Filter [/ASCIIHexDecode /FlateDecode]', hex),
        ]);
        await refused(
          small.intake(chained),
          /^The PDF inflates to more than 23\.\d MiB \(limit: 200 times its size, at least 16 MiB, at most 32 MiB\)\.$/,
        );
        const fine = rawPdf([
          ...onePage('BT /F1 12 Tf 72 720 Td (Chain) Tj ET', '/Thumb 5 0 R '),
          streamBody('/Filter [/ASCIIHexDecode /FlateDecode]', Buffer.from(zerosDeflated(8).toString('hex'))),
        ]);
        assert.equal((await small.intake(fine)).pages.length, 1);
      } finally {
        await small.close();
      }
    });

    it('parses on a thread: this event loop keeps ticking through two seconds of pdf-lib work', async () => {
      // 100 000 objects: about two seconds of parsing; on this thread the interval would stall as long.
      const pdf = manyObjects(100_000);
      const { result, ms, gap } = await timed(() => threads.intake(pdf));
      assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
      assert.ok(ms > 500, `the work took ${Math.round(ms)} ms`);
      assert.ok(gap < 200, `the event loop stalled for ${Math.round(gap)} ms`);
    });

    it('refuses deep nesting, and the warnings pdf-lib prints on the way stay on its thread', async () => {
      const written: string[] = [];
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        written.push(String(chunk));
        return write.call(process.stderr, chunk, ...rest);
      }) as typeof process.stderr.write;
      try {
        await refused(threads.intake(rawPdf([...onePage('BT ET', '/Deep 5 0 R '), '[(unbalanced'])), /objects that cannot be read/);
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        process.stderr.write = write;
      }
      assert.deepEqual(
        written.filter((text) => text.includes('invalid object')),
        [],
      );
      await refusedWithin(
        () => threads.intake(deeplyNested(100_000)),
        /^The PDF has objects that cannot be read \(malformed or nested too deeply\)\.$/,
        3000,
      );
      await refusedWithin(() => threads.intake(deeplyNested(1_000)), /^The PDF nests objects more than 256 levels deep\.$/, 3000);
      assert.equal((await threads.intake(deeplyNested(50))).pages.length, 1, 'a shallow nesting is fine');
    });

    it('refuses a page tree that claims a million pages, and 3 000 real pages', async () => {
      await refusedWithin(
        () => threads.intake(manyPages(1, 1_000_000)),
        /^The PDF has more than 2000 pages \(its page tree claims 1000000\)\.$/,
        3000,
      );
      await refusedWithin(
        () => threads.intake(manyPages(3_000)),
        /^The PDF has more than 2000 pages \(its page tree claims 3000\)\.$/,
        3000,
      );
      await refusedWithin(() => threads.intake(manyPages(3_000, 1_500)), /^The PDF has more than 2000 pages\.$/, 3000);
      assert.equal((await threads.intake(manyPages(2_000))).pages.length, 2000, 'the limit itself is fine');
      await refused(threads.intake(manyPages(3, 2)), /page tree is malformed: a node claims 2 pages and holds 3/);
    });

    it('refuses more objects than the limit', async () => {
      const few = createPdfThreads({ size: 1, limits: { maxObjects: 100 } });
      try {
        await refused(few.intake(manyObjects(200)), /^The PDF has more than 100 objects \(it has 205\)/);
        assert.equal((await few.intake(manyObjects(50))).pages.length, 1);
        // Counted before parsing: pdf-lib would stop at the end of the data and quietly drop the stream.
        const claim = rawPdf([...onePage('BT ET', '/Thumb 5 0 R '), streamBody('/Type /ObjStm /N 10000000 /First 4', Buffer.from('6 0 '))]);
        await refused(few.intake(claim), /^The PDF has more than 100 objects \(it has 10000005\)\.$/);
      } finally {
        await few.close();
      }
    });

    it('refuses a job past its time limit, and the thread that ran it is replaced', async () => {
      const nda = await buildSampleNda();
      const slow = manyObjects(100_000);
      const hurried = createPdfThreads({ size: 1, limits: { timeMs: 300 } });
      try {
        assert.equal((await hurried.intake(nda.pdf)).pages.length, 1, 'a quick job passes');
        await refusedWithin(() => hurried.intake(slow), /^The PDF took longer than 300 ms to check\.$/, 1500);
        assert.equal((await hurried.intake(nda.pdf)).pages.length, 1, 'the next job is served');
      } finally {
        await hurried.close();
      }
    });

    it('refuses a PDF whose thread runs out of memory, and serves the next job', async () => {
      // 128 MB: enough for a thread to start on Node 24 (which loads tsx inside the thread), not for this PDF.
      const small = createPdfThreads({ size: 1, limits: { memoryMb: 128 } });
      try {
        await refused(small.intake(manyObjects(150_000)), /^The PDF needs more than 128 MB of memory to read\.$/);
        const nda = await buildSampleNda();
        assert.equal((await small.intake(nda.pdf)).pages.length, 1);
      } finally {
        await small.close();
      }
    });

    it('queues jobs past its threads, and the wait does not count toward the time limit', async () => {
      const one = createPdfThreads({ size: 1, limits: { timeMs: 3000 } });
      try {
        const nda = await buildSampleNda();
        await one.intake(nda.pdf);
        // Five jobs of about 0.8 s each, on one thread: the last waits longer than the limit before it starts.
        const pdf = manyObjects(40_000);
        const started = performance.now();
        const results = await Promise.all(Array.from({ length: 5 }, () => one.intake(pdf)));
        const ms = performance.now() - started;
        for (const result of results) assert.equal(result.pages.length, 1);
        assert.ok(ms > 3000, `five jobs one after another took ${Math.round(ms)} ms, more than the limit`);
      } finally {
        await one.close();
      }
    });
  });

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

function annotations(doc: PDFDocument, page: number): PDFDict[] {
  const annots = doc.getPage(page).node.lookup(key('Annots'));
  if (!(annots instanceof PDFArray)) return [];
  return annots.asArray().map((item) => doc.context.lookup(item) as PDFDict);
}

function describeAnnotation(annot: PDFDict): string {
  const subtype = annot.lookup(key('Subtype'), PDFName).decodeText();
  const action = annot.lookup(key('A'));
  if (!(action instanceof PDFDict)) return subtype;
  const kind = action.lookup(key('S'), PDFName).decodeText();
  const uri = action.lookup(key('URI'));
  return [subtype, kind, uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : undefined].filter(Boolean).join(' ');
}

/** Two pages (the second cropped and turned) carrying each kind of active content the intake strips. */
/** One page with a form of one widget (object 5, these entries) and, as object 6, its appearance if given. */
function formPdf(widget: string, appearance?: Buffer): Buffer {
  const bodies = onePage('BT /F1 12 Tf 72 720 Td (Form) Tj ET', '/Annots [5 0 R] ');
  bodies[0] =
    '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >>';
  return rawPdf([...bodies, `<< /Type /Annot /Subtype /Widget /F 4 /P 3 0 R ${widget} >>`, ...(appearance ? [appearance] : [])]);
}

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
