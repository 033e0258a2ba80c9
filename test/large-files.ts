// Large files made on the fly for streaming tests and benchmarks: a PDF header, then a deterministic
// pseudo-random pattern whose bytes at any offset can be produced again; never held whole in memory.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
/** What makes the service sniff the file as a PDF. */
export const PDF_HEADER = Buffer.from('%PDF-1.7\n');
const BLOCK = MiB;

/** Block `index` of the pattern: xorshift32 seeded by the index, so any block can be made again alone. */
function patternBlock(index: number): Buffer {
  const block = Buffer.allocUnsafe(BLOCK);
  const words = new Uint32Array(block.buffer, block.byteOffset, BLOCK / 4);
  let x = (Math.imul(index + 1, 0x9e3779b1) ^ 0x5bd1e995) | 0 || 1;
  for (let i = 0; i < words.length; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return block;
}

/** The file: PDF_HEADER then `patternLength` bytes of the pattern, made as it is read (about 1 MiB buffered). */
export function patternedFile(patternLength: number): Readable {
  function* generate() {
    yield PDF_HEADER;
    for (let offset = 0; offset < patternLength; offset += BLOCK) {
      const block = patternBlock(offset / BLOCK);
      yield offset + BLOCK <= patternLength ? block : block.subarray(0, patternLength - offset);
    }
  }
  return Readable.from(generate(), { objectMode: false, highWaterMark: BLOCK });
}

/** The bytes of that file from `start` to `end` (exclusive), made again from the pattern. */
export function patternedSlice(start: number, end: number): Buffer {
  const parts: Buffer[] = [];
  if (start < PDF_HEADER.length) parts.push(PDF_HEADER.subarray(start, Math.min(end, PDF_HEADER.length)));
  let from = Math.max(start, PDF_HEADER.length) - PDF_HEADER.length;
  const to = end - PDF_HEADER.length;
  while (from < to) {
    const index = Math.floor(from / BLOCK);
    const within = from - index * BLOCK;
    const take = Math.min(BLOCK - within, to - from);
    parts.push(patternBlock(index).subarray(within, within + take));
    from += take;
  }
  return Buffer.concat(parts);
}

/** A pass-through that hashes and counts what flows through it. */
export function hashingTap(): { tap: Transform; result(): { sha256: string; size: number } } {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, result: () => ({ sha256: hash.digest('hex'), size }) };
}

/** A pass-through that only counts (a client that leaves the hashing to the service). */
function countingTap(): { tap: Transform; result(): { sha256: string; size: number } } {
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, result: () => ({ sha256: '', size }) };
}

export interface StreamedUpload {
  status: number;
  body: any;
  text: string;
  /** What was sent, hashed on the way (sha256 is empty when the upload was asked not to hash). */
  sent: { sha256: string; size: number };
}

/**
 * POST /v1/assets with node's http client: `source` as the raw body with its Content-Length, hashed
 * while it is sent (unless `hash: false`), with the backpressure of the socket (never buffered whole).
 */
export async function uploadStreamed(
  baseUrl: string,
  key: string,
  source: Readable,
  options: { length: number; filename: string; type?: string; hash?: boolean },
): Promise<StreamedUpload> {
  const { tap, result } = options.hash === false ? countingTap() : hashingTap();
  const request = http.request(`${baseUrl}/v1/assets?filename=${encodeURIComponent(options.filename)}`, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': options.type ?? 'application/octet-stream',
      'content-length': String(options.length),
    },
  });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  // Settled here, so a body cut short by an early answer is not an unhandled rejection; judged below.
  const sending = pipeline(source, tap, request).then(
    () => undefined,
    (error: Error) => error,
  );
  const response = await answered;
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const failed = await sending;
  if (failed && response.statusCode === 201) throw failed;
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.statusCode ?? 0, body, text, sent: result() };
}

export interface StreamedDownload {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** What arrived, hashed on the way and dropped. */
  received: { sha256: string; size: number };
  /** The bytes themselves, only when asked to keep them (a small range). */
  bytes?: Buffer;
}

/** GET a download URL with node's http client, hashing the body as it arrives without keeping it (unless `keep`). */
export async function downloadStreamed(
  url: string,
  options: { headers?: Record<string, string>; keep?: boolean } = {},
): Promise<StreamedDownload> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(url, { agent: false, headers: options.headers }, resolve).once('error', reject);
  });
  const { tap, result } = hashingTap();
  const kept: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (options.keep) kept.push(chunk);
      done();
    },
  });
  await pipeline(response, tap, sink);
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    received: result(),
    bytes: options.keep ? Buffer.concat(kept) : undefined,
  };
}

/** This process's resident set size sampled on a timer; `peak()` answers the highest since the last call. */
export class RssSampler {
  private highest = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 100) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): number {
    const rss = process.memoryUsage().rss;
    this.highest = Math.max(this.highest, rss);
    return rss;
  }

  /** The highest RSS since the last call (or since the sampler started), then starts over from now. */
  peak(): number {
    const now = this.sample();
    const highest = this.highest;
    this.highest = now;
    return highest;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(0)} MiB`;
}
