import type { Context } from 'koa';
import { authenticateKey, type Caller } from '../../activities/accounts/accounts';
import type { Services } from '../../activities/services';
import { errors } from '../../lib/errors';
import type { ApiContext } from './route';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

type KeyDeps = Pick<Services, 'db' | 'keyUsage' | 'keyCache'>;

const lookups = new WeakMap<Context, Promise<Caller | undefined>>();

/**
 * The caller behind the request's `Authorization: Bearer <key>`, looked up once per request (and
 * then from the key cache until the key, its principal or tenant changes): the rate limit (which
 * counts a valid key's requests per key) and the route's authentication share the lookup.
 * Undefined without such a header; the promise answers undefined for an unknown or revoked key.
 */
export function bearerCaller(ctx: Context, deps: KeyDeps): Promise<Caller | undefined> | undefined {
  const match = BEARER.exec(ctx.get('authorization'));
  if (!match) return undefined;
  let lookup = lookups.get(ctx);
  if (!lookup) {
    lookup = authenticateKey(deps.db, match[1], {
      touch: (apiKey, now) => deps.keyUsage.touch(apiKey, now),
      cache: deps.keyCache,
    });
    lookups.set(ctx, lookup);
  }
  return lookup;
}

/** The caller behind `Authorization: Bearer <key>`; 401 for a missing, malformed, unknown or revoked key. */
export async function authenticate(ctx: ApiContext, deps: KeyDeps): Promise<Caller> {
  if (!ctx.get('authorization')) throw errors.unauthorized();
  const lookup = bearerCaller(ctx, deps);
  if (!lookup) throw errors.unauthorized('The Authorization header must be "Bearer <API key>".');
  const caller = await lookup;
  if (!caller) throw errors.unauthorized('The API key is unknown or revoked.');
  ctx.state.caller = caller;
  return caller;
}
