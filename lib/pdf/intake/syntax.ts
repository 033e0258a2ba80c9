// A reader of PDF object syntax on raw bytes that follows pdf-lib's own parser (PDFObjectParser)
// rule for rule, so that the pre-scan sees each stream dictionary as pdf-lib will see it.

export type RawObject =
  | { kind: 'number'; value: number }
  | { kind: 'name'; value: string }
  | { kind: 'ref'; num: number; gen: number }
  | { kind: 'string' }
  | { kind: 'keyword'; value: 'true' | 'false' | 'null' }
  | { kind: 'array'; items: RawObject[] }
  | { kind: 'dict'; entries: Map<string, RawObject> };

export type RawDict = Extract<RawObject, { kind: 'dict' }>;

const WHITESPACE = new Uint8Array(256);
for (const code of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[code] = 1;
const DELIMITER = new Uint8Array(256);
for (const char of '()<>[]{}/%') DELIMITER[char.charCodeAt(0)] = 1;
const DIGIT = new Uint8Array(256);
for (let code = 0x30; code <= 0x39; code++) DIGIT[code] = 1;
const NUMERIC = DIGIT.slice();
for (const char of '.+-') NUMERIC[char.charCodeAt(0)] = 1;

const LF = 0x0a;
const CR = 0x0d;
// Deeper than any real stream dictionary; past it the dictionary counts as unreadable (handled conservatively).
const MAX_DEPTH = 256;

export class RawSyntaxError extends Error {}

export function isWhitespace(byte: number): boolean {
  return WHITESPACE[byte] === 1;
}

export function isDigit(byte: number): boolean {
  return DIGIT[byte] === 1;
}

/** Whether `keyword` (ASCII) is at `pos`. */
export function matchesAt(bytes: Uint8Array, pos: number, keyword: string): boolean {
  if (pos < 0 || pos + keyword.length > bytes.length) return false;
  for (let i = 0; i < keyword.length; i++) if (bytes[pos + i] !== keyword.charCodeAt(i)) return false;
  return true;
}

/** The position after whitespace and %-comments, as pdf-lib's skipWhitespaceAndComments. */
export function skipWhitespaceAndComments(bytes: Uint8Array, start: number): number {
  let pos = start;
  for (;;) {
    while (pos < bytes.length && WHITESPACE[bytes[pos]]) pos++;
    if (bytes[pos] !== 0x25) return pos;
    while (pos < bytes.length && bytes[pos] !== LF && bytes[pos] !== CR) pos++;
  }
}

/** Parses one object at `pos`; answers it and the position after it, or throws RawSyntaxError. */
export function parseRawObject(bytes: Uint8Array, pos: number): { object: RawObject; end: number } {
  const parser = new Parser(bytes, pos);
  const object = parser.object(0);
  return { object, end: parser.pos };
}

export function dictGet(dict: RawDict, key: string): RawObject | undefined {
  return dict.entries.get(key);
}

class Parser {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  object(depth: number): RawObject {
    if (depth > MAX_DEPTH) throw new RawSyntaxError('nested too deeply');
    this.skip();
    for (const value of ['true', 'false', 'null'] as const) {
      if (matchesAt(this.bytes, this.pos, value)) {
        this.pos += value.length;
        return { kind: 'keyword', value };
      }
    }
    const byte = this.bytes[this.pos];
    if (byte === 0x3c && this.bytes[this.pos + 1] === 0x3c) return this.dict(depth);
    if (byte === 0x3c) return this.hexString();
    if (byte === 0x28) return this.string();
    if (byte === 0x2f) return this.name();
    if (byte === 0x5b) return this.array(depth);
    if (NUMERIC[byte]) return this.numberOrRef();
    throw new RawSyntaxError(`unexpected byte ${byte} at ${this.pos}`);
  }

  private skip(): void {
    this.pos = skipWhitespaceAndComments(this.bytes, this.pos);
  }

  private expect(byte: number): void {
    if (this.bytes[this.pos] !== byte) throw new RawSyntaxError(`expected ${byte} at ${this.pos}`);
    this.pos++;
  }

  private rawNumber(): number {
    const start = this.pos;
    while (this.pos < this.bytes.length && NUMERIC[this.bytes[this.pos]]) {
      const byte = this.bytes[this.pos++];
      if (byte === 0x2e) break;
    }
    while (this.pos < this.bytes.length && DIGIT[this.bytes[this.pos]]) this.pos++;
    const text = latin1(this.bytes, start, this.pos);
    const value = Number(text);
    if (!text || !Number.isFinite(value)) throw new RawSyntaxError(`not a number at ${start}`);
    return value;
  }

  private numberOrRef(): RawObject {
    const first = this.rawNumber();
    this.skip();
    const lookahead = this.pos;
    if (DIGIT[this.bytes[this.pos]]) {
      const second = this.rawNumber();
      this.skip();
      if (this.bytes[this.pos] === 0x52) {
        this.pos++;
        return { kind: 'ref', num: first, gen: second };
      }
    }
    this.pos = lookahead;
    return { kind: 'number', value: first };
  }

  private hexString(): RawObject {
    this.expect(0x3c);
    while (this.pos < this.bytes.length && this.bytes[this.pos] !== 0x3e) this.pos++;
    this.expect(0x3e);
    return { kind: 'string' };
  }

  private string(): RawObject {
    let nesting = 0;
    let escaped = false;
    while (this.pos < this.bytes.length) {
      const byte = this.bytes[this.pos++];
      if (!escaped) {
        if (byte === 0x28) nesting++;
        if (byte === 0x29) nesting--;
      }
      escaped = byte === 0x5c ? !escaped : false;
      if (nesting === 0) return { kind: 'string' };
    }
    throw new RawSyntaxError('unbalanced parenthesis');
  }

  private name(): { kind: 'name'; value: string } {
    this.expect(0x2f);
    const start = this.pos;
    while (this.pos < this.bytes.length && !WHITESPACE[this.bytes[this.pos]] && !DELIMITER[this.bytes[this.pos]]) this.pos++;
    // pdf-lib decodes #xx escapes with upper-case hex digits only (PDFName.of).
    const value = latin1(this.bytes, start, this.pos).replace(/#([\dABCDEF]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    return { kind: 'name', value };
  }

  private array(depth: number): RawObject {
    this.expect(0x5b);
    this.skip();
    const items: RawObject[] = [];
    while (this.bytes[this.pos] !== 0x5d) {
      if (this.pos >= this.bytes.length) throw new RawSyntaxError('unterminated array');
      items.push(this.object(depth + 1));
      this.skip();
    }
    this.pos++;
    return { kind: 'array', items };
  }

  private dict(depth: number): RawDict {
    this.pos += 2;
    this.skip();
    const entries = new Map<string, RawObject>();
    // pdf-lib's loop condition, quirk included: it stops when either of the next two bytes is '>'.
    while (this.pos < this.bytes.length && this.bytes[this.pos] !== 0x3e && this.bytes[this.pos + 1] !== 0x3e) {
      const key = this.name().value;
      entries.set(key, this.object(depth + 1));
      this.skip();
    }
    this.skip();
    this.expect(0x3e);
    this.expect(0x3e);
    return { kind: 'dict', entries };
  }
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}
