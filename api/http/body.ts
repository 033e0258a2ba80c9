import type { Context } from 'koa';
import { assertStorableJson } from '../../activities/text';
import { errors, ServiceError } from '../errors';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * A request stream fails only when its client leaves before the body ends (Node's `aborted`): the
 * request is incomplete, a 400 of the client's making, not a 500 to log as our bug.
 */
export function unreadBody(error: unknown): ServiceError {
  return error instanceof ServiceError ? error : errors.invalidRequest('The request body ended before it was complete.');
}

/**
 * Reads a JSON request body under a byte limit: 413 past the limit (before reading when
 * Content-Length says so), 415 for another content type, 400 for malformed JSON or for text PostgreSQL
 * refuses (NUL), naming its path. An empty body is {}.
 */
export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) {
    ctx.set('Connection', 'close');
    throw errors.payloadTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        ctx.set('Connection', 'close');
        throw errors.payloadTooLarge(limit);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw unreadBody(error);
  }
  const raw = Buffer.concat(chunks);
  ctx.state.rawBody = raw;
  if (raw.length === 0 || raw.toString('utf8').trim() === '') return {};
  const type = ctx.get('content-type');
  if (!JSON_TYPE.test(type)) throw errors.unsupportedMediaType('application/json');
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
