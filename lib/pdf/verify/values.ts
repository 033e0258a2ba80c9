// Reading parsed PDF values (lib/pdf/verify/objects.ts) without assuming their shape: accessors that
// answer undefined for anything of another type, content equality, and the references a value holds.
import type { PdfDict, PdfStream, PdfValue } from './objects';

export function get(dict: PdfValue | undefined, key: string): PdfValue | undefined {
  if (dict?.t === 'dict') return dict.v.get(key);
  if (dict?.t === 'stream') return dict.dict.v.get(key);
  return undefined;
}

export function nameOf(value: PdfValue | undefined): string | undefined {
  return value?.t === 'name' ? value.v : undefined;
}

export function numberOf(value: PdfValue | undefined): number | undefined {
  return value?.t === 'num' ? value.v : undefined;
}

/** A text string (PDFDocEncoding read as Latin-1, or UTF-16BE with its BOM). */
export function textOf(value: PdfValue | undefined): string | undefined {
  if (value?.t !== 'str') return undefined;
  const bytes = value.v;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return Buffer.from(bytes.subarray(3)).toString('utf8');
  return Buffer.from(bytes).toString('latin1');
}

/** Two values are the same object content (references compared by number, streams by their raw bytes). */
export function sameValue(a: PdfValue | undefined, b: PdfValue | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.t !== b.t) return false;
  switch (a.t) {
    case 'num':
    case 'bool':
    case 'name':
      return a.v === (b as typeof a).v;
    case 'null':
      return true;
    case 'ref':
      return a.num === (b as typeof a).num && a.gen === (b as typeof a).gen;
    case 'str':
      return Buffer.compare(a.v, (b as typeof a).v) === 0;
    case 'array': {
      const other = b as typeof a;
      return a.v.length === other.v.length && a.v.every((item, index) => sameValue(item, other.v[index]));
    }
    case 'dict':
      return sameDict(a, b as PdfDict);
    case 'stream': {
      const other = b as PdfStream;
      if (!sameDict(a.dict, other.dict) || a.end - a.start !== other.end - other.start) return false;
      return Buffer.compare(a.source.subarray(a.start, a.end), other.source.subarray(other.start, other.end)) === 0;
    }
  }
}

function sameDict(a: PdfDict, b: PdfDict): boolean {
  if (a.v.size !== b.v.size) return false;
  for (const [key, value] of a.v) if (!sameValue(value, b.v.get(key))) return false;
  return true;
}

/** The references a value holds, directly or nested: object numbers, each with the top-level dictionary key it is under ('' outside a dictionary). */
export interface Refs {
  nums: number[];
  keys: string[];
}

export function refsIn(value: PdfValue): Refs {
  const refs: Refs = { nums: [], keys: [] };
  collectRefs(value, '', refs);
  return refs;
}

function collectRefs(value: PdfValue, key: string, refs: Refs): void {
  if (value.t === 'ref') {
    refs.nums.push(value.num);
    refs.keys.push(key);
  } else if (value.t === 'array') for (const item of value.v) collectRefs(item, key, refs);
  else if (value.t === 'dict' || value.t === 'stream') {
    const top = key === '';
    for (const [name, item] of (value.t === 'dict' ? value : value.dict).v) collectRefs(item, top ? name : key, refs);
  }
}
