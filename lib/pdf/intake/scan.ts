// The pre-scan: reads the raw bytes before pdf-lib does, finds every stream as pdf-lib's parser would
// delimit it, and measures what the streams inflate to under a budget, with native zlib and without
// keeping the output. pdf-lib decodes object streams whole and in pure JavaScript; past this scan the
// bytes it can be made to hold are bounded by the budget.

import { t } from '../../i18n';
import { BudgetExceeded, DamagedStream, type Filter, InflateBudget, measureChain } from './inflate';
import { formatBytes, type IntakeLimits, inflateBudget, MIN_INFLATE_ALLOWANCE } from './limits';
import { refuse } from './refuse';
import {
  dictGet,
  isDigit,
  isWhitespace,
  matchesAt,
  parseRawObject,
  type RawDict,
  type RawObject,
  RawSyntaxError,
  skipWhitespaceAndComments,
} from './syntax';

export interface ScanResult {
  /** Indirect objects: headers outside stream data plus the /N of every object stream. */
  objects: number;
  streams: number;
  inflatedBytes: number;
  inflateBudget: number;
}

interface StreamRecord {
  /** The stream's dictionary, or undefined where none could be read before the keyword (measured as Flate). */
  dict?: RawDict;
  dataStart: number;
  dataEnd: number;
  /** Where parsing resumes: after `endstream`. */
  after: number;
}

/**
 * `measure`: which streams' decoding to bound: `all` before the intake (it flattens and rewrites every
 * stream), or `object-streams` before reading signatures (pdf-lib then decodes only those: a damaged
 * page stream is the signature's business, not a reason to refuse the file).
 */
export async function scanPdf(input: Uint8Array, limits: IntakeLimits, measure: 'all' | 'object-streams' = 'all'): Promise<ScanResult> {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const headers = objectHeaders(bytes);
  const streams = findStreams(bytes, headers);

  if (isEncrypted(bytes, streams)) throw refuse(t('errors.pdf.encrypted_upload_without_password'));

  let objects = countOutside(headers, streams);
  for (const stream of streams) {
    if (nameOf(stream.dict && dictGet(stream.dict, 'Type')) !== 'ObjStm') continue;
    const count = stream.dict && dictGet(stream.dict, 'N');
    // pdf-lib reads /N entries from the decoded stream; an indirect /N would hide their number from this count.
    if (count?.kind !== 'number' || !Number.isInteger(count.value) || count.value < 0) {
      throw refuse(t('errors.pdf.object_stream_without_plain'));
    }
    objects += count.value;
  }
  if (objects > limits.maxObjects) throw refuse(t('errors.pdf.more_than_objects', { maxObjects: limits.maxObjects, objects }));

  const budget = new InflateBudget(inflateBudget(bytes.length, limits));
  for (const stream of streams) {
    if (measure === 'object-streams' && nameOf(stream.dict && dictGet(stream.dict, 'Type')) !== 'ObjStm') continue;
    const filters = stream.dict ? filtersOf(stream.dict) : [{ name: 'FlateDecode' }];
    if (filters.length === 0) continue;
    try {
      await measureChain(bytes.subarray(stream.dataStart, stream.dataEnd), filters, budget);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw refuse(inflateMessage(budget.limit, limits));
      if (error instanceof DamagedStream) throw refuse(t('errors.pdf.damaged_compressed_stream'));
      throw error;
    }
  }
  return { objects, streams: streams.length, inflatedBytes: budget.used, inflateBudget: budget.limit };
}

export function inflateMessage(budget: number, limits: IntakeLimits): string {
  const words = { budget: formatBytes(budget), ratio: limits.maxInflateRatio, most: formatBytes(limits.maxInflatedBytes) };
  if (limits.maxInflatedBytes > MIN_INFLATE_ALLOWANCE)
    return t('errors.pdf.inflates_floor', { ...words, least: formatBytes(MIN_INFLATE_ALLOWANCE) });
  return t('errors.pdf.inflates', words);
}

interface Header {
  start: number;
  /** Just after the `obj` keyword. */
  body: number;
}

/** Every `N G obj` (not `endobj`), found by the keyword and read backwards: linear on any input. */
function objectHeaders(bytes: Buffer): Header[] {
  const headers: Header[] = [];
  for (let at = bytes.indexOf('obj'); at !== -1; at = bytes.indexOf('obj', at + 3)) {
    if (matchesAt(bytes, at - 3, 'end')) continue;
    let pos = at - 1;
    while (pos >= 0 && isWhitespace(bytes[pos])) pos--;
    const generationEnd = pos;
    while (pos >= 0 && isDigit(bytes[pos]) && generationEnd - pos < 10) pos--;
    if (pos === generationEnd || !isWhitespace(bytes[pos])) continue;
    while (pos >= 0 && isWhitespace(bytes[pos])) pos--;
    const numberEnd = pos;
    while (pos >= 0 && isDigit(bytes[pos]) && numberEnd - pos < 10) pos--;
    if (pos === numberEnd) continue;
    headers.push({ start: pos + 1, body: at + 3 });
  }
  return headers;
}

/** Streams in file order, each delimited as pdf-lib's PDFObjectParser.parseDictOrStream delimits it. */
function findStreams(bytes: Buffer, headers: Header[]): StreamRecord[] {
  const streams: StreamRecord[] = [];
  // pdf-lib's fallback scan can be made quadratic (every stream without /Length scanning to the end);
  // this one stops past a few passes over the file.
  const work = { remaining: 8 * bytes.length + 1024 * 1024 };
  // Each object is parsed once, however many `stream` words follow it.
  let parsed: { header: number; dict?: RawDict; end: number } | undefined;
  let header = -1;
  let from = 0;
  for (let at = bytes.indexOf('stream', from); at !== -1; at = bytes.indexOf('stream', from)) {
    from = at + 6;
    if (matchesAt(bytes, at - 3, 'end')) continue;
    while (header + 1 < headers.length && headers[header + 1].body <= at) header++;
    let dict: RawDict | undefined;
    if (header >= 0 && headers[header].start >= (streams.at(-1)?.after ?? 0)) {
      if (parsed?.header !== header) parsed = { header, ...dictAfter(bytes, headers[header].body) };
      if (parsed.dict && parsed.end === at) dict = parsed.dict;
    }
    // A dictionary this scan cannot read still counts when `>>` precedes the keyword: measured as Flate.
    if (!dict && !endsWithDictionary(bytes, at)) continue;
    const dataStart = at + streamKeywordLength(bytes, at);
    const record = delimit(bytes, dict, dataStart, work);
    streams.push(record);
    from = record.after;
  }
  return streams;
}

/** The object parsed after `obj` if it is a dictionary, and where the next token after it starts. */
function dictAfter(bytes: Buffer, body: number): { dict?: RawDict; end: number } {
  try {
    const { object, end } = parseRawObject(bytes, body);
    if (object.kind === 'dict') return { dict: object, end: skipWhitespaceAndComments(bytes, end) };
  } catch (error) {
    if (!(error instanceof RawSyntaxError) && !(error instanceof RangeError)) throw error;
  }
  return { end: -1 };
}

function endsWithDictionary(bytes: Buffer, keyword: number): boolean {
  let pos = keyword - 1;
  while (pos >= 0 && isWhitespace(bytes[pos])) pos--;
  return bytes[pos] === 0x3e && bytes[pos - 1] === 0x3e;
}

/** pdf-lib's keywords in its order: "stream \r\n", "stream\r\n", "stream\r", "stream\n", "stream". */
function streamKeywordLength(bytes: Buffer, at: number): number {
  for (const keyword of ['stream \r\n', 'stream\r\n', 'stream\r', 'stream\n']) if (matchesAt(bytes, at, keyword)) return keyword.length;
  return 6;
}

function delimit(bytes: Buffer, dict: RawDict | undefined, dataStart: number, work: { remaining: number }): StreamRecord {
  const length = dict && dictGet(dict, 'Length');
  if (length?.kind === 'number' && Number.isInteger(length.value) && length.value >= 0) {
    const end = dataStart + length.value;
    if (end <= bytes.length) {
      const keyword = skipWhitespaceAndComments(bytes, end);
      if (matchesAt(bytes, keyword, 'endstream')) return { dict, dataStart, dataEnd: end, after: keyword + 9 };
    }
  }
  return fallbackEnd(bytes, dict, dataStart, work);
}

/**
 * pdf-lib's findEndOfStreamFallback: scans for `endstream`, counting any `stream` on the way as a nested
 * stream. Where it never balances pdf-lib drops the object; viewers may not, so the data then runs to
 * the next `endstream` (or the end of the file) and is measured all the same.
 */
function fallbackEnd(bytes: Buffer, dict: RawDict | undefined, dataStart: number, work: { remaining: number }): StreamRecord {
  let nesting = 1;
  let scanned = dataStart;
  for (let at = bytes.indexOf('stream', dataStart); at !== -1; at = bytes.indexOf('stream', scanned)) {
    work.remaining -= at + 6 - scanned;
    if (work.remaining < 0) throw refuse(t('errors.pdf.streams_whose_ends_cannot'));
    if (at - 3 >= scanned && matchesAt(bytes, at - 3, 'end')) {
      nesting--;
      if (nesting === 0) {
        let end = at - 3;
        if (end - 2 >= scanned && bytes[end - 2] === 0x0d && bytes[end - 1] === 0x0a) end -= 2;
        else if (end - 1 >= scanned && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end -= 1;
        return { dict, dataStart, dataEnd: end, after: at + 6 };
      }
    } else {
      nesting++;
    }
    scanned = at + 6;
  }
  const next = bytes.indexOf('endstream', dataStart);
  return next === -1
    ? { dict, dataStart, dataEnd: bytes.length, after: bytes.length }
    : { dict, dataStart, dataEnd: next, after: next + 9 };
}

/** An /Encrypt entry in any trailer or cross-reference stream: refused before any encrypted stream is read. */
function isEncrypted(bytes: Buffer, streams: StreamRecord[]): boolean {
  for (const stream of streams) {
    if (stream.dict && nameOf(dictGet(stream.dict, 'Type')) === 'XRef' && dictGet(stream.dict, 'Encrypt')) return true;
  }
  let index = 0;
  for (let at = bytes.indexOf('trailer'); at !== -1; at = bytes.indexOf('trailer', at + 7)) {
    while (index < streams.length && streams[index].dataEnd <= at) index++;
    // The word inside a stream's data (an attached PDF, say) is not this file's trailer.
    if (index < streams.length && streams[index].dataStart <= at) continue;
    try {
      const { object } = parseRawObject(bytes, at + 7);
      if (object.kind === 'dict' && dictGet(object, 'Encrypt')) return true;
    } catch {
      // Not a trailer dictionary (the word inside some data): nothing to learn from it.
    }
  }
  return false;
}

/** Object headers that lie outside every stream's data (a header inside compressed bytes is no object). */
function countOutside(headers: Header[], streams: StreamRecord[]): number {
  let count = 0;
  let index = 0;
  for (const header of headers) {
    while (index < streams.length && streams[index].after <= header.start) index++;
    const stream = streams[index];
    if (!stream || header.start < stream.dataStart) count++;
  }
  return count;
}

function nameOf(object: RawObject | undefined): string | undefined {
  return object?.kind === 'name' ? object.value : undefined;
}

/** The stream's filter chain; an indirect filter is refused, since what it names is unknown here. */
function filtersOf(dict: RawDict): Filter[] {
  const filter = dictGet(dict, 'Filter');
  if (!filter) return [];
  const parms = dictGet(dict, 'DecodeParms');
  const names = filter.kind === 'array' ? filter.items : [filter];
  if (names.some((name) => name.kind === 'ref')) throw refuse(t('errors.pdf.stream_whose_filter_indirect'));
  const filters: Filter[] = [];
  for (const [index, name] of names.entries()) {
    if (name.kind !== 'name') break;
    const parm = parms?.kind === 'array' ? parms.items[index] : parms;
    const early = parm?.kind === 'dict' ? dictGet(parm, 'EarlyChange') : undefined;
    filters.push({ name: name.value, earlyChange: early?.kind === 'number' ? early.value : undefined });
  }
  return filters;
}
