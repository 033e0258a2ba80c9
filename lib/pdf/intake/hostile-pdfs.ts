// Hostile and odd PDFs for the intake tests, built in memory: raw bytes where pdf-lib cannot write
// the hostility itself. Test helpers only.
import zlib from 'node:zlib';

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
