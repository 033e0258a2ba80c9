// Decodes a stream's filter chain only to measure it: every byte any stage produces is charged to one
// budget, and decoding stops the moment the budget is spent.
import zlib from 'node:zlib';
import { decodePDFRawStream, PDFContext, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';

/** The decoders pdf-lib runs when it parses (object and xref streams); viewers also accept the short names. */
const DECODERS: Record<string, string> = {
  FlateDecode: 'FlateDecode',
  Fl: 'FlateDecode',
  LZWDecode: 'LZWDecode',
  LZW: 'LZWDecode',
  ASCII85Decode: 'ASCII85Decode',
  A85: 'ASCII85Decode',
  ASCIIHexDecode: 'ASCIIHexDecode',
  AHx: 'ASCIIHexDecode',
  RunLengthDecode: 'RunLengthDecode',
  RL: 'RunLengthDecode',
};

export interface Filter {
  name: string;
  /** LZWDecode's /EarlyChange (default 1). */
  earlyChange?: number;
}

/** Past the budget: the caller refuses the PDF. */
export class BudgetExceeded extends Error {}

/** zlib rejects data that pdf-lib's own inflater (a port of pdf.js) might go on decoding: refuse it. */
export class DamagedStream extends Error {}

export class InflateBudget {
  used = 0;

  constructor(readonly limit: number) {}

  get remaining(): number {
    return this.limit - this.used;
  }

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) throw new BudgetExceeded();
  }
}

// Most streams inflate to less than this: one synchronous call, no stream machinery.
const SMALL_OUTPUT = 1024 * 1024;
const CHUNK = 256 * 1024;

export function isDecodable(filter: string): boolean {
  return filter in DECODERS;
}

/**
 * Charges the budget with what each stage of the chain produces. Decoding stops at the first filter
 * pdf-lib does not decode (images: DCT, JPX, JBIG2, CCITT; Crypt; unknown names), as pdf-lib does.
 */
export async function measureChain(data: Uint8Array, filters: Filter[], budget: InflateBudget): Promise<void> {
  let input = data;
  for (let index = 0; index < filters.length; index++) {
    const decoder = DECODERS[filters[index].name];
    if (!decoder) return;
    const next = filters[index + 1];
    const last = !next || !isDecodable(next.name);
    if (decoder === 'FlateDecode') {
      const body = deflateBody(input);
      if (!body) return;
      if (last) return measureInflate(body, budget);
      input = inflateWithin(body, budget);
    } else {
      const output = decodeWithPdfLib(input, decoder, filters[index].earlyChange, budget, !last);
      if (last || !output) return;
      input = output;
    }
  }
}

/**
 * The raw deflate data after a zlib header that pdf-lib's FlateStream accepts, or undefined where
 * pdf-lib would throw before decoding anything. zlib then reads it raw: pdf-lib checks neither the
 * window size nor the Adler-32 checksum, so zlib must not refuse what pdf-lib decodes.
 */
function deflateBody(data: Uint8Array): Uint8Array | undefined {
  if (data.length < 2) return undefined;
  const [cmf, flg] = data;
  if ((cmf & 0x0f) !== 0x08 || ((cmf << 8) + flg) % 31 !== 0 || flg & 0x20) return undefined;
  return data.subarray(2);
}

async function measureInflate(body: Uint8Array, budget: InflateBudget): Promise<void> {
  const cap = Math.min(SMALL_OUTPUT, budget.remaining + 1);
  try {
    budget.charge(zlib.inflateRawSync(body, { maxOutputLength: cap, finishFlush: zlib.constants.Z_SYNC_FLUSH }).length);
    return;
  } catch (error) {
    if (error instanceof BudgetExceeded) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw new DamagedStream();
    if (cap <= budget.remaining) await countInflated(body, budget);
    else throw new BudgetExceeded();
  }
}

/** Inflates chunk by chunk, keeping none of it: memory stays at one chunk however large the stream. */
function countInflated(body: Uint8Array, budget: InflateBudget): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflate = zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: CHUNK });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      if (error) reject(error);
      else resolve();
    };
    inflate.on('data', (chunk: Buffer) => {
      try {
        budget.charge(chunk.length);
      } catch (error) {
        settle(error as Error);
      }
    });
    inflate.on('end', () => settle());
    inflate.on('error', () => settle(new DamagedStream()));
    inflate.end(body);
  });
}

/** A stage whose output the next stage needs: held in memory, which the budget bounds. */
function inflateWithin(body: Uint8Array, budget: InflateBudget): Uint8Array {
  try {
    const output = zlib.inflateRawSync(body, { maxOutputLength: budget.remaining + 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    budget.charge(output.length);
    return output;
  } catch (error) {
    if (error instanceof BudgetExceeded) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BudgetExceeded();
    throw new DamagedStream();
  }
}

/**
 * LZW, ASCII85, ASCIIHex and RunLength through pdf-lib's own decoders (each block they read is small),
 * so the count is what pdf-lib would produce; where pdf-lib's decoder throws, decoding stops there.
 */
function decodeWithPdfLib(
  input: Uint8Array,
  decoder: string,
  earlyChange: number | undefined,
  budget: InflateBudget,
  keep: boolean,
): Uint8Array | undefined {
  const context = PDFContext.create();
  const dict = context.obj({ Filter: PDFName.of(decoder) });
  if (earlyChange !== undefined) dict.set(PDFName.of('DecodeParms'), context.obj({ EarlyChange: PDFNumber.of(earlyChange) }));
  const kept: Uint8Array[] = [];
  try {
    const stream = decodePDFRawStream(PDFRawStream.of(dict, input));
    for (;;) {
      const chunk = stream.getBytes(CHUNK);
      budget.charge(chunk.length);
      if (keep) kept.push(new Uint8Array(chunk));
      if (chunk.length < CHUNK) break;
    }
  } catch (error) {
    if (error instanceof BudgetExceeded) throw error;
  }
  return keep ? Buffer.concat(kept) : undefined;
}
