// A PDF read the way its cross-reference data says, revision by revision: each `startxref … %%EOF`
// names a state of the document (its xref section and every /Prev before it), and an object is what
// that state's entry points at, never what a scan of the bytes happens to find. Two readers that
// resolve objects differently are the root of the incremental-saving and shadow attacks.
import { DecodeBudget, DecodeError, decodeStream } from './decode';
import { isWhitespace, Lexer, type PdfDict, type PdfStream, PdfSyntaxError, type PdfValue, startsWith } from './objects';
import { get, nameOf, numberOf, type Refs, refsIn } from './values';

export type XrefEntry =
  | { type: 'free' }
  | { type: 'offset'; offset: number; gen: number }
  | { type: 'compressed'; stream: number; index: number };

interface XrefSection {
  offset: number;
  entries: Map<number, XrefEntry>;
  trailer: PdfDict;
}

export interface IndirectObject {
  num: number;
  gen: number;
  value: PdfValue;
  /** Where it lies in the file ("N G obj" to after "endobj"); undefined inside an object stream. */
  offset?: number;
  end?: number;
  /** Its identity: the same key in two revisions is the same bytes. */
  key: string;
  /** The references it holds, read once (see refsOf). */
  refs?: Refs;
}

/** The references an object holds, computed on first use and kept with it (walks visit it once per revision). */
export function refsOf(object: IndirectObject): Refs {
  object.refs ??= refsIn(object.value);
  return object.refs;
}

/** A place in the file where a revision ends: `startxref N` followed by `%%EOF` (or the end of the file). */
export interface RevisionEnd {
  startxref: number;
  /** The byte after `%%EOF` and its end-of-line marker. */
  end: number;
  /** The byte after `%%EOF` itself (writers differ on whether a signature covers the end-of-line after it). */
  eof: number;
}

// A file this size needs no more sections than this; a longer /Prev chain is a loop or an attack.
const MAX_SECTIONS = 4096;

/** Why the file, or one of its revisions, cannot be read as its cross-reference data says. */
export class StructureError extends Error {}

/** The file, with what every revision shares: parsed sections, objects and object streams by their place. */
export class PdfFile {
  private readonly sections = new Map<number, XrefSection>();
  private readonly objects = new Map<string, IndirectObject>();
  /** Objects at file offsets, by offset: the lookup every walk makes, without building a key string. */
  private readonly atOffset = new Map<number, IndirectObject>();
  private readonly objectStreams = new Map<string, { data: Uint8Array; offsets: Array<[number, number]>; first: number }>();
  readonly budget: DecodeBudget;

  constructor(
    readonly bytes: Uint8Array,
    decodeLimit: number,
  ) {
    this.budget = new DecodeBudget(decodeLimit);
  }

  /** Every `startxref N %%EOF` in the file, in file order (unchecked: a state may still fail to read). */
  revisionEnds(): RevisionEnd[] {
    const ends: RevisionEnd[] = [];
    const bytes = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    for (let at = bytes.indexOf('startxref'); at !== -1; at = bytes.indexOf('startxref', at + 9)) {
      let pos = at + 9;
      while (pos < bytes.length && isWhitespace(bytes[pos])) pos++;
      const digits = pos;
      while (pos < bytes.length && bytes[pos] >= 0x30 && bytes[pos] <= 0x39) pos++;
      if (pos === digits || pos - digits > 15) continue;
      const startxref = Number(bytes.toString('latin1', digits, pos));
      while (pos < bytes.length && isWhitespace(bytes[pos])) pos++;
      if (startsWith(bytes, pos, '%%EOF')) {
        pos += 5;
        const eof = pos;
        if (bytes[pos] === 0x0d) pos++;
        if (bytes[pos] === 0x0a) pos++;
        ends.push({ startxref, end: pos, eof });
      } else if (pos === bytes.length) ends.push({ startxref, end: pos, eof: pos });
    }
    return ends;
  }

  /** The document as the revision ending at `end` states it; throws StructureError when it cannot be read. */
  state(revision: RevisionEnd): DocumentState {
    const entries = new Map<number, XrefEntry>();
    const seen = new Set<number>();
    let trailer: PdfDict | undefined;
    const pending: number[] = [revision.startxref];
    while (pending.length > 0) {
      const offset = pending.shift()!;
      if (seen.has(offset) || seen.size >= MAX_SECTIONS) throw new StructureError('its cross-reference sections loop');
      seen.add(offset);
      if (offset >= revision.end) throw new StructureError('a cross-reference section lies after the end of its revision');
      const section = this.section(offset, revision.end);
      trailer ??= section.trailer;
      for (const [num, entry] of section.entries) if (!entries.has(num)) entries.set(num, entry);
      // A hybrid file's table names a stream of more entries that rank after its own, before /Prev's.
      const stm = numberOf(section.trailer.v.get('XRefStm'));
      if (stm !== undefined && !seen.has(stm)) pending.unshift(stm);
      const prev = numberOf(section.trailer.v.get('Prev'));
      if (prev !== undefined) pending.push(prev);
    }
    return new DocumentState(this, revision, entries, trailer!);
  }

  private section(offset: number, limit: number): XrefSection {
    const cached = this.sections.get(offset);
    if (cached) return cached;
    if (!Number.isInteger(offset) || offset < 0 || offset >= limit) throw new StructureError(`startxref ${offset} is outside the file`);
    let section: XrefSection;
    try {
      section = startsWith(this.bytes, offset, 'xref') ? this.table(offset) : this.stream(offset);
    } catch (error) {
      if (error instanceof StructureError) throw error;
      throw new StructureError(`the cross-reference section at byte ${offset} cannot be read: ${(error as Error).message}`);
    }
    this.sections.set(offset, section);
    return section;
  }

  private table(offset: number): XrefSection {
    const lexer = new Lexer(this.bytes, offset + 4);
    const entries = new Map<number, XrefEntry>();
    for (;;) {
      const save = lexer.pos;
      if (lexer.keyword() === 'trailer') break;
      lexer.pos = save;
      const first = lexer.integer();
      const count = lexer.integer();
      if (count > this.bytes.length / 18) throw new StructureError('a cross-reference subsection claims more entries than the file holds');
      for (let i = 0; i < count; i++) {
        const entryOffset = lexer.integer();
        const gen = lexer.integer();
        const kind = lexer.keyword();
        if (kind !== 'n' && kind !== 'f') throw new StructureError(`a cross-reference entry is "${kind.slice(0, 10)}", not n or f`);
        if (!entries.has(first + i)) entries.set(first + i, kind === 'n' ? { type: 'offset', offset: entryOffset, gen } : { type: 'free' });
      }
    }
    const trailer = lexer.value();
    if (trailer.t !== 'dict') throw new StructureError('the trailer is not a dictionary');
    return { offset, entries, trailer };
  }

  private stream(offset: number): XrefSection {
    const object = this.parseAt(offset, (num, gen) => {
      throw new StructureError(`the cross-reference stream's /Length is an indirect reference (${num} ${gen} R)`);
    });
    const stream = object.value;
    if (stream.t !== 'stream' || nameOf(get(stream, 'Type')) !== 'XRef')
      throw new StructureError(`startxref ${offset} points at no cross-reference data`);
    const widths = get(stream, 'W');
    const w = widths?.t === 'array' ? widths.v.map(numberOf) : [];
    if (w.length !== 3 || w.some((width) => width === undefined || width < 0 || width > 8))
      throw new StructureError('a cross-reference stream has no usable /W');
    const [w1, w2, w3] = w as number[];
    const size = numberOf(get(stream, 'Size')) ?? 0;
    const index = get(stream, 'Index');
    const ranges = index?.t === 'array' ? index.v.map(numberOf) : [0, size];
    if (ranges.some((value) => value === undefined || value < 0) || ranges.length % 2)
      throw new StructureError('a cross-reference stream has a malformed /Index');
    const data = decodeStream(stream, this.budget);
    const entries = new Map<number, XrefEntry>();
    const rowSize = w1 + w2 + w3;
    let at = 0;
    for (let r = 0; r < ranges.length; r += 2) {
      for (let i = 0; i < (ranges[r + 1] as number); i++) {
        if (at + rowSize > data.length) throw new StructureError('a cross-reference stream is shorter than its /Index says');
        const type = w1 === 0 ? 1 : field(data, at, w1);
        const a = field(data, at + w1, w2);
        const b = field(data, at + w1 + w2, w3);
        at += rowSize;
        const num = (ranges[r] as number) + i;
        if (entries.has(num)) continue;
        if (type === 0) entries.set(num, { type: 'free' });
        else if (type === 1) entries.set(num, { type: 'offset', offset: a, gen: b });
        else if (type === 2) entries.set(num, { type: 'compressed', stream: a, index: b });
      }
    }
    const {
      Length: _length,
      Filter: _filter,
      DecodeParms: _parms,
      W: _w,
      Index: _index,
      Type: _type,
      ...rest
    } = Object.fromEntries(stream.dict.v);
    const trailer: PdfDict = { t: 'dict', v: new Map(Object.entries(rest)) };
    return { offset, entries, trailer };
  }

  /** The indirect object whose header is at `offset` ("N G obj … endobj"). */
  parseAt(offset: number, length?: (num: number, gen: number) => number | undefined): IndirectObject {
    const cached = this.atOffset.get(offset);
    if (cached) return cached;
    const key = `o${offset}`;
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.bytes.length)
      throw new StructureError(`an object offset (${offset}) is outside the file`);
    const lexer = new Lexer(this.bytes, offset, this.bytes.length, length);
    lexer.skip();
    if (lexer.pos !== offset && lexer.pos - offset > 4) throw new StructureError(`no object starts at byte ${offset}`);
    const start = lexer.pos;
    const num = lexer.integer();
    const gen = lexer.integer();
    lexer.expectKeyword('obj');
    const value = lexer.value(true);
    lexer.expectKeyword('endobj');
    const object: IndirectObject = { num, gen, value, offset: start, end: lexer.pos, key };
    // A stream delimited by another object's value is read again in each revision.
    if (!lexer.usedIndirectLength) this.atOffset.set(offset, object);
    return object;
  }

  /** Object `index` of the object stream `stream` (an indirect object already resolved). */
  compressed(stream: IndirectObject, index: number): IndirectObject {
    const key = `${stream.key}#${index}`;
    const cached = this.objects.get(key);
    if (cached) return cached;
    const decoded = this.objectStream(stream);
    const pair = decoded.offsets[index];
    if (!pair) throw new StructureError(`object stream ${stream.num} has no object number ${index}`);
    const start = decoded.first + pair[1];
    const next = decoded.offsets[index + 1];
    const end = next ? decoded.first + next[1] : decoded.data.length;
    if (start > end || end > decoded.data.length) throw new StructureError(`object stream ${stream.num} has malformed offsets`);
    const value = new Lexer(decoded.data, start, end).value(false);
    const object: IndirectObject = { num: pair[0], gen: 0, value, key };
    this.objects.set(key, object);
    return object;
  }

  private objectStream(stream: IndirectObject): { data: Uint8Array; offsets: Array<[number, number]>; first: number } {
    const cached = this.objectStreams.get(stream.key);
    if (cached) return cached;
    const value = stream.value;
    if (value.t !== 'stream' || nameOf(get(value, 'Type')) !== 'ObjStm')
      throw new StructureError(`object ${stream.num} is not an object stream`);
    const count = numberOf(get(value, 'N'));
    const first = numberOf(get(value, 'First'));
    if (count === undefined || first === undefined || !Number.isInteger(count) || count < 0 || first < 0)
      throw new StructureError(`object stream ${stream.num} has no usable /N and /First`);
    const data = decodeStream(value as PdfStream, this.budget);
    if (count > data.length) throw new StructureError(`object stream ${stream.num} claims more objects than it holds`);
    const lexer = new Lexer(data, 0, Math.min(first, data.length));
    const offsets: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) offsets.push([lexer.integer(), lexer.integer()]);
    const decoded = { data, offsets, first };
    this.objectStreams.set(stream.key, decoded);
    return decoded;
  }
}

/** One revision of the document: its trailer and the object each number means in it. */
export class DocumentState {
  private resolving = 0;

  constructor(
    readonly file: PdfFile,
    readonly revision: RevisionEnd,
    readonly entries: Map<number, XrefEntry>,
    readonly trailer: PdfDict,
  ) {}

  /** The object numbered `num` here, or undefined where the number is free or unknown (it reads as null). */
  object(num: number): IndirectObject | undefined {
    const entry = this.entries.get(num);
    if (!entry || entry.type === 'free') return undefined;
    if (this.resolving > 8) throw new StructureError('object references nest through object streams too deeply');
    this.resolving++;
    try {
      if (entry.type === 'offset') {
        if (entry.offset >= this.revision.end) throw new StructureError(`object ${num} lies after the end of its revision`);
        const object = this.file.parseAt(entry.offset, (n) => this.lengthOf(n));
        if (object.num !== num || object.gen !== entry.gen)
          throw new StructureError(`the cross-reference data says object ${num} is at byte ${entry.offset}, where object ${object.num} is`);
        return object;
      }
      const stream = this.object(entry.stream);
      if (!stream) throw new StructureError(`object ${num} is in object stream ${entry.stream}, which does not exist`);
      const object = this.file.compressed(stream, entry.index);
      if (object.num !== num)
        throw new StructureError(`object stream ${entry.stream} holds object ${object.num} where object ${num} should be`);
      return object;
    } catch (error) {
      if (error instanceof PdfSyntaxError || error instanceof DecodeError)
        throw new StructureError(`object ${num} cannot be read: ${error.message}`);
      throw error;
    } finally {
      this.resolving--;
    }
  }

  /** A value with references followed (one level): what a reader sees at that place. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    if (value?.t !== 'ref') return value;
    return this.object(value.num)?.value ?? { t: 'null' };
  }

  /** The identity of object `num` here: equal keys in two states mean the very same bytes. */
  keyOf(num: number): string {
    const entry = this.entries.get(num);
    if (!entry || entry.type === 'free') return 'free';
    if (entry.type === 'offset') return `o${entry.offset}`;
    return `${this.keyOf(entry.stream)}#${entry.index}`;
  }

  get root(): PdfValue | undefined {
    return this.trailer.v.get('Root');
  }

  private lengthOf(num: number): number | undefined {
    const value = this.object(num)?.value;
    return value?.t === 'num' ? value.v : undefined;
  }
}

function field(data: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + data[at + i];
  return value;
}
