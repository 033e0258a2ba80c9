import type { Context } from 'koa';
import { errors, ServiceError } from '../../lib/errors';
import { assertStorableJson } from '../../lib/text';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * A request stream fails only when its client leaves before the body ends (Node's `aborted`): the
 * request is incomplete, a 400 of the client's making, not a 500 to log as our bug.
 */
export function unreadBody(error: unknown): ServiceError {
  return error instanceof ServiceError ? error : errors.invalidRequest('The request body ended before it was complete.');
}

/** 413 for a body past its limit; the connection closes after the answer rather than read the rest. */
export function tooLarge(ctx: Context, limit: number, what = 'request body'): ServiceError {
  ctx.set('Connection', 'close');
  return errors.payloadTooLarge(`The ${what} is larger than ${limit} bytes.`);
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
 * 400 for malformed JSON or for text PostgreSQL refuses (NUL), naming its path. An empty body is {}.
 */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const raw = await readLimitedBody(ctx, limit);
  ctx.state.rawBody = raw;
  if (raw.length === 0 || raw.toString('utf8').trim() === '') return {};
  const type = ctx.get('content-type');
  if (!JSON_TYPE.test(type)) throw errors.unsupportedMediaType('Send the body as application/json.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw errors.invalidRequest(`The body is not valid JSON: ${(error as Error).message}`);
  }
  // Checked once here, for every route: text PostgreSQL refuses would otherwise end as a 500 at the insert.
  assertStorableJson(parsed);
  return parsed;
}
