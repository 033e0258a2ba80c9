// Decoding of the only streams the verifier reads inside: cross-reference streams and object streams
// (FlateDecode with PNG or TIFF predictors). Every decoded byte is charged to one budget; content
// streams are compared by their raw bytes and never decoded.
import zlib from 'node:zlib';
import type { PdfStream, PdfValue } from './objects';
import { get, nameOf, numberOf } from './values';

export class DecodeError extends Error {}

/** What all decoded streams of one verification may add up to. */
export class DecodeBudget {
  used = 0;

  constructor(readonly limit: number) {}

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) throw new DecodeError(`its compressed structures inflate to more than ${this.limit} bytes`);
  }
}

export function decodeStream(stream: PdfStream, budget: DecodeBudget): Uint8Array {
  const raw = stream.source.subarray(stream.start, stream.end);
  const filter = get(stream, 'Filter');
  const filters = filter?.t === 'array' ? filter.v : filter ? [filter] : [];
  const parms = get(stream, 'DecodeParms');
  if (filters.length === 0) return raw;
  if (filters.length > 1) throw new DecodeError('a structural stream has more than one filter');
  const name = nameOf(filters[0]);
  if (name !== 'FlateDecode' && name !== 'Fl') throw new DecodeError(`a structural stream uses the filter ${name ?? '?'}`);
  let inflated: Buffer;
  try {
    inflated = zlib.inflateSync(raw, { maxOutputLength: Math.max(1, budget.limit - budget.used + 1) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') budget.charge(budget.limit + 1);
    throw new DecodeError('a structural stream does not inflate');
  }
  budget.charge(inflated.length);
  const parm = parms?.t === 'array' ? parms.v[0] : parms;
  return unpredict(inflated, parm);
}

function unpredict(data: Uint8Array, parms: PdfValue | undefined): Uint8Array {
  const predictor = numberOf(get(parms, 'Predictor')) ?? 1;
  if (predictor === 1) return data;
  const colors = numberOf(get(parms, 'Colors')) ?? 1;
  const bits = numberOf(get(parms, 'BitsPerComponent')) ?? 8;
  const columns = numberOf(get(parms, 'Columns')) ?? 1;
  if (bits !== 8 || colors < 1 || colors > 4 || columns < 1 || !Number.isInteger(columns))
    throw new DecodeError('unsupported predictor parameters');
  const pixel = colors;
  const row = colors * columns;
  if (predictor === 2) {
    const out = Uint8Array.from(data);
    for (let start = 0; start < out.length; start += row)
      for (let i = start + pixel; i < Math.min(start + row, out.length); i++) out[i] = (out[i] + out[i - pixel]) & 0xff;
    return out;
  }
  if (predictor < 10 || predictor > 15) throw new DecodeError(`unsupported predictor ${predictor}`);
  const rows = Math.floor(data.length / (row + 1));
  const out = new Uint8Array(rows * row);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (row + 1)];
    const input = r * (row + 1) + 1;
    const at = r * row;
    for (let i = 0; i < row; i++) {
      const x = data[input + i];
      const left = i >= pixel ? out[at + i - pixel] : 0;
      const up = r > 0 ? out[at - row + i] : 0;
      const upLeft = r > 0 && i >= pixel ? out[at - row + i - pixel] : 0;
      let value: number;
      if (type === 0) value = x;
      else if (type === 1) value = x + left;
      else if (type === 2) value = x + up;
      else if (type === 3) value = x + ((left + up) >> 1);
      else if (type === 4) value = x + paeth(left, up, upLeft);
      else throw new DecodeError(`unknown PNG predictor row type ${type}`);
      out[at + i] = value & 0xff;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}
