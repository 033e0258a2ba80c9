// A raw writer and reader of classic-xref PDF revisions, for building attacked files byte by byte:
// pdf-lib and libpdf rewrite or tidy what they save, and the attacks need exactly the bytes they name.
import { randomBytes } from 'node:crypto';

/** What a revision's trailer says (references as "n g R" text, as written). */
export interface Trailer {
  size: number;
  root: string;
  info?: string;
  /** The raw /ID array, e.g. "[<AB…> <AB…>]". */
  id?: string;
  prev?: number;
}

export interface XrefEntry {
  offset: number;
  generation: number;
  inUse: boolean;
}

/** One xref section and its trailer, found at `startxref`. */
export interface Revision {
  startxref: number;
  trailer: Trailer;
  entries: Map<number, XrefEntry>;
}

export interface UpdateOptions {
  /** Objects marked free (f entries) in this section. */
  free?: number[];
  /** Xref entries that point at bodies already in the file, written without any new body (shadow "hide via xref"). */
  pointAt?: Map<number, number>;
  /** A new /Root (object number or "n g R"). */
  root?: number | string;
}

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** The offset the last `startxref` names. */
export function lastStartxref(pdf: Uint8Array): number {
  const tail = latin1(pdf.subarray(Math.max(0, pdf.length - 1024)));
  const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!match) throw new Error('no startxref … %%EOF at the end of the file');
  return Number(match[1]);
}

/** The xref section (classic table only) and trailer at `offset`. */
export function readRevision(pdf: Uint8Array, offset: number): Revision {
  const text = latin1(pdf);
  if (!text.startsWith('xref', offset))
    throw new Error(`no classic xref table at ${offset} (an xref stream? save with useObjectStreams: false)`);
  const trailerAt = text.indexOf('trailer', offset);
  if (trailerAt < 0) throw new Error(`the xref table at ${offset} has no trailer`);
  const entries = new Map<number, XrefEntry>();
  const lines = text
    .slice(offset + 4, trailerAt)
    .trim()
    .split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; ) {
    const [start, count] = lines[i].trim().split(/\s+/).map(Number);
    for (let n = 0; n < count; n += 1) {
      const [position, generation, kind] = lines[i + 1 + n].trim().split(/\s+/);
      entries.set(start + n, { offset: Number(position), generation: Number(generation), inUse: kind === 'n' });
    }
    i += 1 + count;
  }
  const dict = text.slice(trailerAt, text.indexOf('startxref', trailerAt));
  const reference = (key: string) => new RegExp(`/${key}\\s+(\\d+\\s+\\d+\\s+R)`).exec(dict)?.[1];
  const number = (key: string) => {
    const match = new RegExp(`/${key}\\s+(\\d+)(?!\\d)(?!\\s+\\d+\\s+R)`).exec(dict);
    return match ? Number(match[1]) : undefined;
  };
  const root = reference('Root');
  const size = number('Size');
  if (!root || size === undefined) throw new Error(`the trailer at ${trailerAt} has no /Root or /Size`);
  return {
    startxref: offset,
    entries,
    trailer: { size, root, info: reference('Info'), id: /\/ID\s*(\[[^\]]*\])/.exec(dict)?.[1], prev: number('Prev') },
  };
}

/** Every revision, newest first, following /Prev from the last startxref. */
export function readRevisions(pdf: Uint8Array): Revision[] {
  const revisions: Revision[] = [];
  for (let offset: number | undefined = lastStartxref(pdf); offset !== undefined; offset = revisions.at(-1)!.trailer.prev) {
    if (revisions.some((revision) => revision.startxref === offset)) throw new Error('an xref /Prev loop');
    revisions.push(readRevision(pdf, offset));
  }
  return revisions;
}

/** The newest revision's trailer and where its xref starts. */
export function lastTrailer(pdf: Uint8Array): Trailer & { startxref: number } {
  const revision = readRevision(pdf, lastStartxref(pdf));
  return { ...revision.trailer, startxref: revision.startxref };
}

/** The next unused object number (the newest trailer's /Size). */
export function nextObjectNumber(pdf: Uint8Array): number {
  return lastTrailer(pdf).size;
}

export interface FoundObject {
  number: number;
  generation: number;
  /** Where `n g obj` starts. */
  offset: number;
  /** From `n g obj` through `endobj`. */
  bytes: Buffer;
  /** What lies between `obj` and `endobj` (or `stream`), trimmed: the dictionary or value. */
  value: string;
}

/** The object a reader resolves for `number`: the newest in-use xref entry, following /Prev. */
export function findObject(pdf: Uint8Array, number: number): FoundObject {
  for (const revision of readRevisions(pdf)) {
    const entry = revision.entries.get(number);
    if (!entry) continue;
    if (!entry.inUse) throw new Error(`object ${number} is free`);
    return objectAt(pdf, entry.offset, number);
  }
  throw new Error(`object ${number} is in no xref section`);
}

/** The object body starting at `offset` (checked to be `number`'s). */
export function objectAt(pdf: Uint8Array, offset: number, number?: number): FoundObject {
  const text = latin1(pdf);
  const header = /^(\d+)\s+(\d+)\s+obj\b/.exec(text.slice(offset, offset + 40));
  if (!header || (number !== undefined && Number(header[1]) !== number))
    throw new Error(`no header of object ${number ?? '?'} at ${offset}: ${JSON.stringify(text.slice(offset, offset + 20))}`);
  const start = offset + header[0].length;
  // A stream's data may hold "endobj": skip it by its direct /Length.
  const streamAt = /\bstream(\r\n|\n)/.exec(text.slice(start, text.indexOf('endobj', start)));
  let end: number;
  let value: string;
  if (streamAt) {
    value = text.slice(start, start + streamAt.index).trim();
    const length = /\/Length\s+(\d+)(?!\d)(?!\s+\d+\s+R)/.exec(value);
    const dataAt = start + streamAt.index + streamAt[0].length;
    end = text.indexOf('endobj', length ? dataAt + Number(length[1]) : dataAt) + 'endobj'.length;
  } else {
    end = text.indexOf('endobj', start) + 'endobj'.length;
    value = text.slice(start, end - 'endobj'.length).trim();
  }
  return { number: Number(header[1]), generation: Number(header[2]), offset, bytes: Buffer.from(pdf.subarray(offset, end)), value };
}

/** A stream object's body: `<< dict /Length n >> stream … endstream` (data written as is, uncompressed). */
export function streamBody(dict: string, data: string | Buffer): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${bytes.length} >>\nstream\n`, 'latin1'), bytes, Buffer.from('\nendstream')]);
}

/** A reference's text: 7 → "7 0 R". */
export function ref(number: number, generation = 0): string {
  return `${number} ${generation} R`;
}

/**
 * Appends one incremental update: the bodies of `objects` (number → value, written as `n 0 obj … endobj`),
 * then a classic xref table (20-byte entries), a trailer carrying /Size, /Root, /Info, /ID and /Prev
 * (the previous startxref), startxref and %%EOF.
 */
export function appendUpdate(pdf: Uint8Array, objects: Map<number, string | Buffer>, options: UpdateOptions = {}): Buffer {
  const previous = lastTrailer(pdf);
  const parts: Buffer[] = [Buffer.from(pdf)];
  let length = pdf.length;
  const push = (bytes: Buffer) => {
    parts.push(bytes);
    length += bytes.length;
  };
  // A reader looks for `n g obj` after an end-of-line.
  if (pdf[pdf.length - 1] !== 0x0a) push(Buffer.from('\n'));
  const entries = new Map<number, string>();
  for (const [number, body] of objects) {
    entries.set(number, entry(length, 0, 'n'));
    push(
      Buffer.concat([
        Buffer.from(`${number} 0 obj\n`),
        typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
        Buffer.from('\nendobj\n'),
      ]),
    );
  }
  for (const [number, offset] of options.pointAt ?? []) entries.set(number, entry(offset, 0, 'n'));
  // The free list: entry 0 heads it (and keeps an update of no object a well-formed table), each
  // freed object points at the next, the last at 0.
  const free = [...(options.free ?? [])].sort((a, b) => a - b);
  entries.set(0, entry(free[0] ?? 0, 65535, 'f'));
  for (const [index, number] of free.entries()) entries.set(number, entry(free[index + 1] ?? 0, 1, 'f'));
  const numbers = [...entries.keys()].sort((a, b) => a - b);
  let table = 'xref\n';
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j += 1;
    table += `${numbers[i]} ${j - i + 1}\n${numbers
      .slice(i, j + 1)
      .map((number) => entries.get(number))
      .join('')}`;
    i = j + 1;
  }
  const size = Math.max(previous.size, (numbers.at(-1) ?? 0) + 1);
  const root = options.root === undefined ? previous.root : typeof options.root === 'number' ? ref(options.root) : options.root;
  const firstId = /<([0-9A-Fa-f]*)>/.exec(previous.id ?? '')?.[1] ?? randomBytes(16).toString('hex').toUpperCase();
  const id = `[<${firstId}> <${randomBytes(16).toString('hex').toUpperCase()}>]`;
  const info = previous.info ? ` /Info ${previous.info}` : '';
  const startxref = length;
  push(
    Buffer.from(
      `${table}trailer\n<< /Size ${size} /Root ${root}${info} /ID ${id} /Prev ${previous.startxref} >>\nstartxref\n${startxref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

/** One xref entry: exactly 20 bytes, "oooooooooo ggggg n\r\n"-style with a space before the LF. */
function entry(offset: number, generation: number, kind: 'n' | 'f'): string {
  return `${String(offset).padStart(10, '0')} ${String(generation).padStart(5, '0')} ${kind} \n`;
}

/**
 * Inserts `bytes` at `at` into a single-revision classic-xref file and shifts every offset after it
 * (xref entries and startxref), so the file stays well formed: used to plant a body no xref names.
 */
export function insertIntoSingleRevision(pdf: Uint8Array, at: number, bytes: Buffer): Buffer {
  const revisions = readRevisions(pdf);
  if (revisions.length !== 1) throw new Error('insertIntoSingleRevision takes a file with one revision');
  const [revision] = revisions;
  if (at > revision.startxref) throw new Error('insert before the xref table');
  const text = latin1(pdf);
  const shift = (offset: number) => (offset >= at ? offset + bytes.length : offset);
  const trailerAt = text.indexOf('trailer', revision.startxref);
  const numbers = [...revision.entries.keys()].sort((a, b) => a - b);
  let table = 'xref\n';
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j += 1;
    table += `${numbers[i]} ${j - i + 1}\n`;
    for (const number of numbers.slice(i, j + 1)) {
      const found = revision.entries.get(number)!;
      table += entry(found.inUse ? shift(found.offset) : found.offset, found.generation, found.inUse ? 'n' : 'f');
    }
    i = j + 1;
  }
  const trailer = text.slice(trailerAt, text.indexOf('startxref', trailerAt));
  return Buffer.concat([
    Buffer.from(pdf.subarray(0, at)),
    bytes,
    Buffer.from(pdf.subarray(at, revision.startxref)),
    Buffer.from(`${table}${trailer}startxref\n${revision.startxref + bytes.length}\n%%EOF\n`, 'latin1'),
  ]);
}
