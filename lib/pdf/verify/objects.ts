// PDF object syntax as ISO 32000 writes it, read strictly for the verifier: every value keeps its
// bytes' place in its source, so a signature's /Contents can be matched to its /ByteRange gap, and
// anything a lenient reader would guess at (a bad hex digit, a duplicate key, a wrong /Length) is an
// error here, never a repair.

export type PdfValue =
  | { t: 'num'; v: number }
  | { t: 'bool'; v: boolean }
  | { t: 'null' }
  | { t: 'name'; v: string }
  | PdfString
  | { t: 'ref'; num: number; gen: number }
  | { t: 'array'; v: PdfValue[] }
  | PdfDict
  | PdfStream;

export interface PdfString {
  t: 'str';
  /** The decoded bytes (escapes and hex resolved). */
  v: Uint8Array;
  hex: boolean;
}

export interface PdfDict {
  t: 'dict';
  v: Map<string, PdfValue>;
  /** Where its /Contents value lies in the source, [first byte, byte after]: what a signature's /ByteRange gap must be. */
  contentsSpan?: [number, number];
  /** A key appeared twice: readers disagree on which one counts. */
  duplicateKey?: string;
}

export interface PdfStream {
  t: 'stream';
  dict: PdfDict;
  /** The bytes the stream's data lies in (the file, or a decoded object stream) and where. */
  source: Uint8Array;
  start: number;
  end: number;
}

export class PdfSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(`${message} at byte ${at}`);
  }
}

const WHITESPACE = new Uint8Array(256);
for (const code of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[code] = 1;
const DELIMITER = new Uint8Array(256);
for (const char of '()<>[]{}/%') DELIMITER[char.charCodeAt(0)] = 1;
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}
// Deeper than any real document nests; past it the file is refused rather than the stack.
const MAX_DEPTH = 64;

export function isWhitespace(byte: number): boolean {
  return WHITESPACE[byte] === 1;
}

export function isRegular(byte: number): boolean {
  return WHITESPACE[byte] !== 1 && DELIMITER[byte] !== 1;
}

/** Whether the ASCII `word` is at `pos`. */
export function startsWith(bytes: Uint8Array, pos: number, word: string): boolean {
  if (pos < 0 || pos + word.length > bytes.length) return false;
  for (let i = 0; i < word.length; i++) if (bytes[pos + i] !== word.charCodeAt(i)) return false;
  return true;
}

/** The position after whitespace and comments. */
export function skipSpace(bytes: Uint8Array, start: number, end = bytes.length): number {
  let pos = start;
  for (;;) {
    while (pos < end && WHITESPACE[bytes[pos]]) pos++;
    if (pos >= end || bytes[pos] !== 0x25) return pos;
    while (pos < end && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;
  }
}

/** Resolves an indirect /Length while a stream is read (undefined: not resolvable). */
export type LengthResolver = (num: number, gen: number) => number | undefined;

/**
 * Reads objects from `bytes` between `pos` and `end`. `keyword` reads a bare word (obj, endobj,
 * stream, R, xref, trailer); `value` reads one object, and a dictionary followed by `stream` as a
 * stream when `streams` is allowed (indirect objects in the file; never inside object streams).
 */
export class Lexer {
  /** A stream's /Length was an indirect object: what it reads as depends on the revision. */
  usedIndirectLength = false;

  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly end: number = bytes.length,
    private readonly length?: LengthResolver,
  ) {}

  skip(): void {
    this.pos = skipSpace(this.bytes, this.pos, this.end);
  }

  /** The bare word at the position (after whitespace), consumed; '' when none. */
  keyword(): string {
    this.skip();
    const start = this.pos;
    while (this.pos < this.end && isRegular(this.bytes[this.pos])) this.pos++;
    return latin1(this.bytes, start, this.pos);
  }

  expectKeyword(word: string): void {
    const at = this.pos;
    const found = this.keyword();
    if (found !== word) throw new PdfSyntaxError(`expected "${word}", found "${found.slice(0, 20)}"`, at);
  }

  /** A non-negative integer written as digits only. */
  integer(): number {
    this.skip();
    const start = this.pos;
    while (this.pos < this.end && this.bytes[this.pos] >= 0x30 && this.bytes[this.pos] <= 0x39) this.pos++;
    if (this.pos === start || this.pos - start > 15) throw new PdfSyntaxError('expected an integer', start);
    if (this.pos < this.end && isRegular(this.bytes[this.pos])) throw new PdfSyntaxError('expected an integer', start);
    return Number(latin1(this.bytes, start, this.pos));
  }

  value(streams = false, depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new PdfSyntaxError('objects nested too deeply', this.pos);
    this.skip();
    if (this.pos >= this.end) throw new PdfSyntaxError('unexpected end of data', this.pos);
    const byte = this.bytes[this.pos];
    if (byte === 0x3c && this.bytes[this.pos + 1] === 0x3c) {
      const dict = this.dict(depth);
      return streams ? this.maybeStream(dict) : dict;
    }
    if (byte === 0x3c) return this.hexString();
    if (byte === 0x28) return this.literalString();
    if (byte === 0x2f) return { t: 'name', v: this.name() };
    if (byte === 0x5b) return this.array(depth);
    if (byte === 0x2b || byte === 0x2d || byte === 0x2e || (byte >= 0x30 && byte <= 0x39)) return this.numberOrRef();
    const at = this.pos;
    const word = this.keyword();
    if (word === 'true' || word === 'false') return { t: 'bool', v: word === 'true' };
    if (word === 'null') return { t: 'null' };
    throw new PdfSyntaxError(`unexpected "${word.slice(0, 20) || String.fromCharCode(byte)}"`, at);
  }

  private number(): number {
    const start = this.pos;
    if (this.bytes[this.pos] === 0x2b || this.bytes[this.pos] === 0x2d) this.pos++;
    let digits = 0;
    let dot = false;
    while (this.pos < this.end) {
      const byte = this.bytes[this.pos];
      if (byte >= 0x30 && byte <= 0x39) digits++;
      else if (byte === 0x2e && !dot) dot = true;
      else break;
      this.pos++;
    }
    if (digits === 0 || (this.pos < this.end && isRegular(this.bytes[this.pos]))) throw new PdfSyntaxError('malformed number', start);
    const value = Number(latin1(this.bytes, start, this.pos));
    if (!Number.isFinite(value)) throw new PdfSyntaxError('malformed number', start);
    return value;
  }

  private numberOrRef(): PdfValue {
    const first = this.number();
    const after = this.pos;
    if (Number.isInteger(first) && first >= 0) {
      const pos = skipSpace(this.bytes, this.pos, this.end);
      if (pos > after && this.bytes[pos] >= 0x30 && this.bytes[pos] <= 0x39) {
        this.pos = pos;
        const second = this.number();
        const r = skipSpace(this.bytes, this.pos, this.end);
        if (Number.isInteger(second) && this.bytes[r] === 0x52 && (r + 1 >= this.end || !isRegular(this.bytes[r + 1]))) {
          this.pos = r + 1;
          return { t: 'ref', num: first, gen: second };
        }
      }
    }
    this.pos = after;
    return { t: 'num', v: first };
  }

  private hexString(): PdfString {
    const start = this.pos;
    this.pos++;
    const digits: number[] = [];
    while (this.pos < this.end && this.bytes[this.pos] !== 0x3e) {
      const byte = this.bytes[this.pos++];
      if (WHITESPACE[byte]) continue;
      const digit = HEX[byte];
      if (digit < 0) throw new PdfSyntaxError('a hex string holds a byte that is not a hex digit', this.pos - 1);
      digits.push(digit);
    }
    if (this.pos >= this.end) throw new PdfSyntaxError('unterminated hex string', start);
    this.pos++;
    if (digits.length % 2) digits.push(0);
    const out = new Uint8Array(digits.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = (digits[2 * i] << 4) | digits[2 * i + 1];
    return { t: 'str', v: out, hex: true };
  }

  private literalString(): PdfString {
    const start = this.pos;
    this.pos++;
    const out: number[] = [];
    let depth = 1;
    while (this.pos < this.end) {
      let byte = this.bytes[this.pos++];
      if (byte === 0x28) depth++;
      else if (byte === 0x29 && --depth === 0) return { t: 'str', v: Uint8Array.from(out), hex: false };
      else if (byte === 0x5c) {
        byte = this.bytes[this.pos++];
        const escaped = ESCAPES[byte];
        if (escaped !== undefined) out.push(escaped);
        else if (byte >= 0x30 && byte <= 0x37) {
          let code = byte - 0x30;
          for (let i = 0; i < 2 && this.bytes[this.pos] >= 0x30 && this.bytes[this.pos] <= 0x37; i++)
            code = code * 8 + this.bytes[this.pos++] - 0x30;
          out.push(code & 0xff);
        } else if (byte === 0x0d) {
          if (this.bytes[this.pos] === 0x0a) this.pos++;
        } else if (byte !== 0x0a) out.push(byte);
        continue;
      }
      // An end of line inside a string reads as one line feed.
      if (byte === 0x0d) {
        if (this.bytes[this.pos] === 0x0a) this.pos++;
        byte = 0x0a;
      }
      out.push(byte);
    }
    throw new PdfSyntaxError('unterminated string', start);
  }

  name(): string {
    const start = this.pos;
    if (this.bytes[this.pos] !== 0x2f) throw new PdfSyntaxError('expected a name', start);
    this.pos++;
    const out: number[] = [];
    while (this.pos < this.end && isRegular(this.bytes[this.pos])) {
      const byte = this.bytes[this.pos++];
      if (byte === 0x23 && HEX[this.bytes[this.pos]] >= 0 && HEX[this.bytes[this.pos + 1]] >= 0) {
        out.push((HEX[this.bytes[this.pos]] << 4) | HEX[this.bytes[this.pos + 1]]);
        this.pos += 2;
      } else out.push(byte);
    }
    return Buffer.from(out).toString('latin1');
  }

  private array(depth: number): PdfValue {
    const start = this.pos;
    this.pos++;
    const items: PdfValue[] = [];
    for (;;) {
      this.skip();
      if (this.pos >= this.end) throw new PdfSyntaxError('unterminated array', start);
      if (this.bytes[this.pos] === 0x5d) {
        this.pos++;
        return { t: 'array', v: items };
      }
      items.push(this.value(false, depth + 1));
    }
  }

  private dict(depth: number): PdfDict {
    const start = this.pos;
    this.pos += 2;
    const dict: PdfDict = { t: 'dict', v: new Map() };
    for (;;) {
      this.skip();
      if (this.pos >= this.end) throw new PdfSyntaxError('unterminated dictionary', start);
      if (this.bytes[this.pos] === 0x3e) {
        if (this.bytes[this.pos + 1] !== 0x3e) throw new PdfSyntaxError('malformed end of dictionary', this.pos);
        this.pos += 2;
        return dict;
      }
      const key = this.name();
      this.skip();
      const valueStart = this.pos;
      const value = this.value(false, depth + 1);
      if (dict.v.has(key)) dict.duplicateKey ??= key;
      dict.v.set(key, value);
      if (key === 'Contents') dict.contentsSpan = [valueStart, this.pos];
    }
  }

  private maybeStream(dict: PdfDict): PdfDict | PdfStream {
    const save = this.pos;
    this.skip();
    if (!startsWith(this.bytes, this.pos, 'stream') || (this.pos + 6 < this.end && isRegular(this.bytes[this.pos + 6]))) {
      this.pos = save;
      return dict;
    }
    let start = this.pos + 6;
    // The keyword is followed by CRLF or LF (a lone CR is tolerated: some writers emit it).
    if (this.bytes[start] === 0x0d) start++;
    if (this.bytes[start] === 0x0a) start++;
    const length = this.streamLength(dict);
    const end = start + length;
    if (end > this.end) throw new PdfSyntaxError('a stream runs past the end of its data', start);
    const after = skipSpace(this.bytes, end, this.end);
    if (!startsWith(this.bytes, after, 'endstream')) throw new PdfSyntaxError('a stream’s /Length does not end at "endstream"', end);
    this.pos = after + 9;
    return { t: 'stream', dict, source: this.bytes, start, end };
  }

  private streamLength(dict: PdfDict): number {
    const length = dict.v.get('Length');
    let value: number | undefined;
    if (length?.t === 'num') value = length.v;
    else if (length?.t === 'ref') {
      this.usedIndirectLength = true;
      value = this.length?.(length.num, length.gen);
    }
    if (value === undefined || !Number.isInteger(value) || value < 0) throw new PdfSyntaxError('a stream has no usable /Length', this.pos);
    return value;
  }
}

const ESCAPES: Record<number, number> = {
  110: 0x0a,
  114: 0x0d,
  116: 0x09,
  98: 0x08,
  102: 0x0c,
  40: 0x28,
  41: 0x29,
  92: 0x5c,
};

export function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}
