// Hostile and odd PDFs for the intake tests, built in memory: raw bytes where pdf-lib cannot write
// the hostility itself. Test helpers only.
import zlib from 'node:zlib';
import { degrees, type PDFDict, PDFDocument, PDFName, type PDFObject, type PDFRef, PDFString, StandardFonts } from 'pdf-lib';

export type RawBody = string | Buffer;

/**
 * A PDF of these object bodies, numbered from 1 (what follows `N 0 obj`), with a correct classic
 * cross-reference table; the trailer gets /Size, /Root 1 0 R and `trailer` (extra entries).
 */
export function rawPdf(bodies: RawBody[], trailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  bodies.forEach((body, index) => {
    offsets.push(offset);
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`),
      Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
      Buffer.from('\nendobj\n'),
    ]);
    parts.push(part);
    offset += part.length;
  });
  const xref = [
    `xref\n0 ${bodies.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`),
  ];
  parts.push(Buffer.from(`${xref.join('')}trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R ${trailer}>>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object body: the dictionary entries (without /Length) and the data. */
export function streamBody(entries: string, data: Buffer, length = data.length): Buffer {
  return Buffer.concat([Buffer.from(`<< ${entries} /Length ${length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
}

/** Catalog, page tree and one Letter page (objects 1 to 3) with this content stream (object 4). */
export function onePage(content: string, pageExtra = ''): RawBody[] {
  return [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> ${pageExtra}>>`,
    streamBody('', Buffer.from(content)),
  ];
}

/**
 * zlib data that inflates to `mib` MiB of zeros, built in milliseconds: one MiB deflated once with a
 * full flush (so it stands alone) and repeated, then a final block and the Adler-32 of the zeros.
 */
export function zerosDeflated(mib: number): Buffer {
  const chunk = zlib.deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((((mib * 1024 * 1024) % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array(mib).fill(chunk), zlib.deflateRawSync(Buffer.alloc(0)), adler]);
}

/** The measured bomb: `count` object streams that each inflate to `mib` MiB of zeros, behind one plain page. */
export function objectStreamBomb(count: number, mib: number): Buffer {
  const data = zerosDeflated(mib);
  const bombs = Array.from({ length: count }, () => streamBody('/Type /ObjStm /N 1 /First 8 /Filter /FlateDecode', data));
  return rawPdf([...onePage('BT /F1 12 Tf 72 720 Td (Bomb) Tj ET'), ...bombs]);
}

/** One page whose dictionary reaches an object nested `depth` arrays deep. */
export function deeplyNested(depth: number): Buffer {
  return rawPdf([...onePage('BT /F1 12 Tf 72 720 Td (Deep) Tj ET', '/Deep 5 0 R '), `${'['.repeat(depth)}${']'.repeat(depth)}`]);
}

/** A page tree of `pages` real pages, or one page under a /Count that claims `claimed`. */
export function manyPages(pages: number, claimed = pages): Buffer {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 4} 0 R`).join(' ');
  const leaves = Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 3 0 R >>');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${claimed} >>`,
    streamBody('', Buffer.from('0 0 m 10 10 l S')),
    ...leaves,
  ]);
}

/** One page and `count` small reachable objects: slow and large for pdf-lib, but within the default limits. */
export function manyObjects(count: number): Buffer {
  const refs = Array.from({ length: count }, (_, index) => `${index + 6} 0 R`).join(' ');
  const objects = Array.from(
    { length: count },
    (_, index) => `<< /Index ${index} /Kind /Filler /Values [1 2 3 4] /Label (object ${index}) >>`,
  );
  return rawPdf([...onePage('BT /F1 12 Tf 72 720 Td (Many) Tj ET', '/Filler 5 0 R '), `[${refs}]`, ...objects]);
}

/**
 * A two-page PDF carrying each kind of active content the intake strips: an OpenAction and a page
 * action in JavaScript, document JavaScript, an embedded file, a form field with XFA and a keystroke
 * script, Launch and javascript: links, a file attachment, a print-only annotation, a bookmark script.
 */
export async function hostileFeatures(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([500, 700]);
  page.drawText('Visible clause', { x: 50, y: 620, size: 14, font });
  const second = doc.addPage([612, 792]);
  second.setCropBox(0, 0, 600, 400);
  second.setRotation(degrees(90));
  second.drawText('Second page', { x: 50, y: 300, size: 12, font });

  const context = doc.context;
  const script = (code: string) => context.register(context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of(code) }));
  doc.catalog.set(PDFName.of('OpenAction'), script('app.alert("open")'));
  doc.catalog.set(
    PDFName.of('Names'),
    context.obj({ JavaScript: context.obj({ Names: [PDFString.of('init'), script('app.alert("names")')] }) }),
  );
  page.node.set(PDFName.of('AA'), context.obj({ O: script('app.alert("page")') }));
  await doc.attach(new TextEncoder().encode('MZ payload'), 'payload.exe', { mimeType: 'application/octet-stream' });

  const form = doc.getForm();
  const field = form.createTextField('signer.name');
  field.setText('Jane Doe');
  field.addToPage(page, { x: 50, y: 520, width: 200, height: 24, font });
  field.acroField.dict.set(PDFName.of('AA'), context.obj({ K: script('event.rc = false') }));
  form.acroForm.dict.set(PDFName.of('XFA'), context.obj([PDFString.of('template'), context.register(context.stream('<template/>'))]));

  const annotation = (entries: Record<string, PDFObject | number[] | string | number>): PDFRef =>
    context.register(context.obj({ Type: 'Annot', Border: [0, 0, 0], ...entries }));
  const link = (action: PDFDict, y: number) => annotation({ Subtype: 'Link', Rect: [50, y, 250, y + 20], A: action });
  page.node.addAnnot(link(context.obj({ S: 'Launch', F: PDFString.of('calc.exe') }), 400));
  page.node.addAnnot(link(context.obj({ S: 'URI', URI: PDFString.of('https://example.com/terms') }), 370));
  page.node.addAnnot(link(context.obj({ S: 'URI', URI: PDFString.of('javascript:app.alert(1)') }), 340));
  page.node.addAnnot(link(context.obj({ S: 'GoTo', D: [second.ref, 'Fit'] }), 310));
  const attached = context.register(context.stream('attached bytes', { Type: 'EmbeddedFile' }));
  const spec = context.obj({ Type: 'Filespec', F: PDFString.of('note.txt'), EF: context.obj({ F: attached }) });
  page.node.addAnnot(annotation({ Subtype: 'FileAttachment', Rect: [300, 400, 320, 420], FS: spec, Name: 'PushPin' }));
  // Print and NoView: printed, never shown on screen.
  page.node.addAnnot(
    annotation({
      Subtype: 'FreeText',
      Rect: [300, 300, 450, 330],
      Contents: PDFString.of('print only'),
      F: 4 | 32,
      DA: PDFString.of('/Helv 12 Tf 0 g'),
    }),
  );

  const outlines = context.nextRef();
  const item = context.register(context.obj({ Title: PDFString.of('Run'), Parent: outlines, A: script('app.alert("bookmark")') }));
  context.assign(outlines, context.obj({ Type: 'Outlines', First: item, Last: item, Count: 1 }));
  doc.catalog.set(PDFName.of('Outlines'), outlines);
  // pdf-lib's own appearance update (on save) would drop the XFA: the fields have their appearances already.
  return doc.save({ updateFieldAppearances: false });
}

/** One page whose text sits in an optional content group (object 5), or a membership of it (object 6), under this default configuration. */
export function layered(config: string, options: { group?: string; membership?: string } = {}): Buffer {
  const { group = '<< /Type /OCG /Name (Layer) >>', membership } = options;
  const bodies = onePage('/OC /Layer BDC BT /F1 24 Tf 72 700 Td (Layer text) Tj ET EMC');
  bodies[2] = (bodies[2] as string).replace('/Resources <<', `/Resources << /Properties << /Layer ${membership ? '6 0 R' : '5 0 R'} >>`);
  return rawPdf([
    bodies[0].toString().replace('>>', `/OCProperties << /OCGs [5 0 R] ${config} >> >>`),
    ...bodies.slice(1),
    group,
    ...(membership ? [membership] : []),
  ]);
}
