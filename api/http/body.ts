import { type Readable, Transform } from 'node:stream';
import type { Context } from 'koa';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { assertStorableJson } from '../../lib/text';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * A request stream fails only when its client leaves before the body ends (Node's `aborted`): the
 * request is incomplete, a 400 of the client's making, not a 500 to log as our bug.
 */
export function unreadBody(error: unknown): ServiceError {
  return error instanceof ServiceError ? error : errors.invalidRequest(t('errors.http.request_body_ended_before_complete'));
}

/** 413 for a body past its limit; the connection closes after the answer rather than read the rest. */
export function tooLarge(ctx: Context, limit: number, what = 'request body'): ServiceError {
  ctx.set('Connection', 'close');
  return errors.payloadTooLarge(t('errors.http.larger_than_bytes', { what, limit }));
}

/**
 * The whole request body, at most `limit` bytes: 413 past it (before reading when Content-Length says
 * so), 400 when the client leaves mid-body.
 */
export async function readLimitedBody(ctx: Context, limit: number, what = 'request body'): Promise<Buffer> {
  if (Number(ctx.get('content-length') || '0') > limit) throw tooLarge(ctx, limit, what);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge(ctx, limit, what);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw unreadBody(error);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a JSON request body under a byte limit (see readLimitedBody): 415 for another content type,
 * 400 for malformed JSON or for text PostgreSQL refuses (NUL), naming its path. An empty body is {},
 * unless `required` (a route whose body is not optional by design): then 400.
 */
export async function readJsonBody(ctx: Context, limit: number, options: { required?: boolean } = {}): Promise<unknown> {
  const raw = await readLimitedBody(ctx, limit);
  ctx.state.rawBody = raw;
  if (raw.length === 0 || raw.toString('utf8').trim() === '') {
    if (options.required) throw errors.invalidRequest(t('errors.http.send_json_body_application_json'));
    return {};
  }
  const type = ctx.get('content-type');
  if (!JSON_TYPE.test(type)) throw errors.unsupportedMediaType(t('errors.http.send_body_application_json'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw errors.invalidRequest(t('errors.http.body_not_valid_json', { reason: (error as Error).message }));
  }
  // Checked once here, for every route: text PostgreSQL refuses would otherwise end as a 500 at the insert.
  assertStorableJson(parsed);
  return parsed;
}

/** An upload body the registry does not read (RouteSpec.stream): what it takes, and how much. */
export interface StreamSpec {
  /** Media types taken (`image/*` or `*\/*` take a family or anything); another Content-Type gets 415. */
  types: readonly string[];
  /** Largest body in bytes: 413 before reading when Content-Length says so, else as soon as the bytes pass it. */
  limit: number;
  /** The field that carries the file when `multipart/form-data` is taken (default `file`), for OpenAPI. */
  field?: string;
}

/** What the handler of a streaming route gets instead of a parsed body. */
export interface StreamBody {
  /**
   * The body as it arrives, never buffered whole. It fails with 413 payload_too_large past the
   * limit and 400 invalid_request when the client leaves mid-body; a handler that lets either
   * escape answers with it.
   */
  stream: Readable;
  /** The Content-Type as sent, parameters included (a multipart boundary). */
  type: string;
  /** The Content-Length the client declared, if any. */
  length?: number;
}

const MEDIA_TYPE = /^\s*([\w.+-]+)\/([\w.+-]+)\s*(;|$)/;
/** How long the rest of an upload answered early is read and dropped before its connection is cut. */
const DRAIN_MS = 5000;

function takes(types: readonly string[], type: string, subtype: string): boolean {
  return types.some((taken) => {
    const [family, sub] = taken.toLowerCase().split('/');
    return (family === '*' || family === type) && (sub === '*' || sub === subtype);
  });
}

function uploadTooLarge(limit: number): ServiceError {
  return errors.payloadTooLarge(t('errors.http.request_body_larger_than_bytes', { limit }));
}

/**
 * The request body of a streaming route, checked before a byte is read (Content-Length against the
 * limit, Content-Type against the types) and counted as it flows: past the limit the stream fails
 * with 413 and the request is left unread (see drainAfterAnswer).
 */
export function streamBody(ctx: Context, spec: StreamSpec): StreamBody {
  const declared = ctx.get('content-length');
  const length = declared ? Number(declared) : undefined;
  if (length !== undefined && length > spec.limit) throw uploadTooLarge(spec.limit);
  const type = ctx.get('content-type');
  const media = MEDIA_TYPE.exec(type);
  if (!media || !takes(spec.types, media[1].toLowerCase(), media[2].toLowerCase()))
    throw errors.unsupportedMediaType(t('errors.http.send_body', { types: spec.types.join(' or ') }));

  const { req } = ctx;
  let size = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size <= spec.limit) {
        done(null, chunk);
      } else {
        req.unpipe(counted);
        req.pause();
        done(uploadTooLarge(spec.limit));
      }
    },
  });
  // Its reader gets the error too; this keeps one nobody reads (a handler that refused early) from crashing the process.
  counted.on('error', () => undefined);
  const left = (error?: unknown) => {
    if (!req.complete) counted.destroy(unreadBody(error));
  };
  req.once('aborted', () => left());
  req.once('error', left);
  req.pipe(counted);
  return { stream: counted, type, length };
}

/**
 * After an answer given before an upload was read in full (refused, or 413 past its limit), the rest
 * of the body is read and dropped for at most DRAIN_MS, then the connection is cut. Closing at once
 * would leave unread bytes, TCP would answer them with a reset, and the client could lose the answer.
 */
export function drainAfterAnswer(ctx: Context): void {
  const { req, res } = ctx;
  if (req.complete) return;
  res.once('finish', () => {
    if (req.complete) return;
    const cut = setTimeout(() => req.socket.destroy(), DRAIN_MS);
    cut.unref();
    req.once('end', () => clearTimeout(cut));
    req.socket.once('close', () => clearTimeout(cut));
    req.unpipe();
    req.resume();
  });
}

/** A streaming route's whole body in memory: for bodies its spec bounds to a few MiB (the stream fails past the limit). */
export async function readStream(stream: StreamBody['stream']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
