// Bodies as sent: JSON bodies for a schema, file-like bytes, chunked framing and lying lengths, and the
// request that carries one.
import fc from 'fast-check';
import { TINY_GIF, TINY_JPEG } from '../images';
import { JSON_TRICKS, jsonText } from './encodings';
import { hostileJson, hostileString } from './hostile';
import type { FuzzMaterial } from './material';
import { type JsonSchema, type Material, mutated } from './schema-values';
import type { FuzzRequest } from './send';

/** A body as sent: bytes, its Content-Type (if any), and a Content-Length that lies (if any), or chunked framing. */
export interface Body {
  bytes?: Buffer;
  type?: string;
  contentLength?: string;
  /** The bytes are already framed as chunks; `cutShort` when the last chunk never comes. */
  chunked?: { cutShort: boolean };
}

/** `text` in Transfer-Encoding: chunked framing, well formed or not. */
function chunked(text: string, how: string): Buffer {
  const bytes = Buffer.from(text);
  const half = Math.floor(bytes.length / 2);
  const chunk = (part: Buffer, size = part.length.toString(16)) => Buffer.concat([Buffer.from(`${size}\r\n`), part, Buffer.from('\r\n')]);
  const parts = [
    chunk(bytes.subarray(0, half)),
    chunk(bytes.subarray(half), how === 'bad-size' ? 'zz' : how === 'extension' ? `${(bytes.length - half).toString(16)};x=y` : undefined),
  ];
  return Buffer.concat([...parts, Buffer.from(how === 'no-end' ? '' : '0\r\n\r\n')]);
}

/** File-like bytes: random, the run's real images and PDF, truncated or corrupted ones. */
export function fileBytes(images: FuzzMaterial['images']): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        images.png,
        images.bomb,
        images.pdf,
        TINY_JPEG,
        TINY_GIF,
        images.png.subarray(0, 40),
        images.pdf.subarray(0, 500),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(images.png, images.pdf, TINY_JPEG), fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
        .map(([file, at, bytes]) => corrupt(file, at, bytes)),
    },
  );
}

function corrupt(file: Buffer, at: number, bytes: Uint8Array): Buffer {
  const copy = Buffer.from(file);
  copy.set(bytes.subarray(0, Math.max(0, copy.length - (at % copy.length))), at % copy.length);
  return copy;
}

/** What a JSON body draws from: the run's values, file-like bytes and the server's JSON limit. */
export interface BodySources {
  values: Material;
  bytes: fc.Arbitrary<Buffer>;
  jsonLimit: number;
}

/** A JSON body for a schema: mutated values, raw JSON tricks, wrong or missing Content-Type, sizes around the limit, lying lengths. */
export function jsonBody(sources: BodySources, schema: JsonSchema | undefined): fc.Arbitrary<Body> {
  const value = schema ? mutated(schema, sources.values) : hostileJson;
  const json = (text: string, type = 'application/json'): Body => ({ bytes: Buffer.from(text, 'utf8'), type });
  const limit = sources.jsonLimit;
  return fc.oneof(
    { weight: 8, arbitrary: value.map((v) => json(JSON.stringify(v) ?? 'null')) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(value, fc.constantFrom(...JSON_TRICKS), hostileString)
        .map(([v, trick, extra]) => json(jsonText(v, trick, extra))),
    },
    { weight: 1, arbitrary: hostileJson.map((v) => json(JSON.stringify(v) ?? 'null')) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          value,
          fc.constantFrom(
            undefined,
            '',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
            'application/vnd.api+json',
            'application/jsonx',
            'json',
            'application/json, text/plain',
            'APPLICATION/JSON',
            '*/*',
            'application/json;;;',
          ),
          hostileString,
        )
        .map(([v, type, extra]) => ({
          bytes: Buffer.from(JSON.stringify(v) ?? extra, 'utf8'),
          type: type === '' ? extra : type,
        })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>({}, json(''), json('   '), json('\n'), { bytes: Buffer.alloc(0), type: 'text/plain' }),
    },
    { weight: 1, arbitrary: sources.bytes.map((bytes) => ({ bytes, type: 'application/json' })) },
    // Right below, at and past the limit (a declared Content-Length past it is refused before reading).
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(limit - 100, limit, limit + 1, limit + 2000), fc.constantFrom('name', 'reason', 'url', 'token', 'x'))
        .map(([size, field]) => json(`{"${field}":"${'x'.repeat(size - field.length - 7)}"}`)),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.constantFrom('ok', 'ok', 'bad-size', 'extension', 'no-end')).map(
        ([v, how]): Body => ({
          bytes: chunked(JSON.stringify(v) ?? 'null', how),
          type: 'application/json',
          chunked: { cutShort: how === 'no-end' },
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          value,
          fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom('abc', '-1', '1e3', ' 5', '0x10', '18446744073709551616', '5, 5', '')),
        )
        .map(([v, lie]) => {
          const bytes = Buffer.from(JSON.stringify(v) ?? 'null');
          return {
            bytes,
            type: 'application/json',
            contentLength: typeof lie === 'number' ? String(Math.max(0, bytes.length + lie)) : lie,
          };
        }),
    },
  );
}

/** The request on the wire: the body's Content-Type, framing and declared length become its headers. */
export function request(group: string, method: string, path: string, headers: Record<string, string>, body: Body): FuzzRequest {
  const all = {
    ...headers,
    ...(body.type !== undefined ? { 'content-type': body.type } : {}),
    ...(body.chunked ? { 'transfer-encoding': 'chunked' } : {}),
  };
  if (body.chunked) return { group, method, path, headers: all, body: body.bytes, raw: {}, cutShort: body.chunked.cutShort };
  // As Node reads the header: surrounding whitespace, and a list of equal values, are taken.
  const declared = body.contentLength?.split(',').map((part) => part.trim());
  const cutShort = declared?.every((part) => /^\d+$/.test(part)) && Number(declared[0]) > (body.bytes?.length ?? 0);
  return {
    group,
    method,
    path,
    headers: all,
    ...(body.bytes ? { body: body.bytes } : {}),
    ...(body.contentLength !== undefined ? { raw: { contentLength: body.contentLength }, cutShort } : {}),
  };
}
