import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { authenticateKey, authenticateKeyId, type Caller } from '../../activities/accounts/accounts';
import { resourcesOf } from '../../activities/oauth/common';
import { verifyAccessToken } from '../../activities/oauth/tokens';
import type { Services } from '../../activities/services';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { constantTimeEqual } from '../../lib/ids';
import type { ApiContext } from './route-spec';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

type KeyDeps = Pick<Services, 'db' | 'keyUsage' | 'keyCache' | 'secret' | 'config'>;

/**
 * The header the MCP surface's tools send on their loopback calls to this process's REST API, with
 * this per-process random value: only with it does the REST API take a token issued for /mcp, so an
 * MCP token is no REST token for anyone else (docs/decisions/0028-oauth-2-1-for-the-mcp.md).
 */
export const LOOPBACK_HEADER = 'x-svc-mcp-loopback';
export const LOOPBACK_SECRET = randomBytes(32).toString('base64url');

/** The protected resource a request reaches: the MCP endpoint, or the REST API (anything else with a bearer). */
export function resourceOf(ctx: Context, deps: Pick<Services, 'config'>): { resource: string; metadata: string } {
  const { publicUrl } = deps.config;
  const name = ctx.path === '/mcp' ? 'mcp' : 'v1';
  return {
    resource: resourcesOf(publicUrl)[name === 'mcp' ? 'mcp' : 'api'],
    metadata: `${publicUrl}/.well-known/oauth-protected-resource/${name}`,
  };
}

/** The audiences an access token may have here: /mcp takes its own; the REST API its own, and /mcp's from the MCP tools' loopback calls. */
function audiencesOf(ctx: Context, deps: KeyDeps): string[] {
  const { mcp, api } = resourcesOf(deps.config.publicUrl);
  if (ctx.path === '/mcp') return [mcp];
  const loopback = ctx.get(LOOPBACK_HEADER);
  return loopback && constantTimeEqual(loopback, LOOPBACK_SECRET) ? [api, mcp] : [api];
}

/** The challenge of a 401 (RFC 6750, RFC 9728): where the resource's metadata is, and whether the token sent was refused. */
export function bearerChallenge(ctx: Context, deps: Pick<Services, 'config'>): string {
  const invalid = ctx.get('authorization') ? ', error="invalid_token"' : '';
  return `Bearer realm="svc", resource_metadata="${resourceOf(ctx, deps).metadata}"${invalid}`;
}

const lookups = new WeakMap<Context, Promise<Caller | undefined>>();

async function lookUp(ctx: Context, deps: KeyDeps, token: string): Promise<Caller | undefined> {
  const options = { touch: deps.keyUsage.touch.bind(deps.keyUsage), cache: deps.keyCache };
  if (!JWT.test(token)) return authenticateKey(deps.db, token, options);
  const claims = await verifyAccessToken(deps.secret, deps.config.publicUrl, token, audiencesOf(ctx, deps));
  if (!claims) return undefined;
  const caller = await authenticateKeyId(deps.db, claims.keyId, options);
  if (!caller) return undefined;
  // A token may do what its own grant was approved for, and no more than its app holds now (issue 37).
  const scopes = caller.apiKey.scopes.filter((scope) => claims.scopes.includes(scope));
  if (scopes.length === caller.apiKey.scopes.length) return caller;
  const apiKey = caller.apiKey.$clone();
  apiKey.scopes = scopes;
  return { ...caller, apiKey };
}

/**
 * The caller behind the request's `Authorization: Bearer <key or access token>`, looked up once per
 * request (and then from the key cache until the key, its principal or tenant changes): the rate
 * limit (which counts a valid key's requests per key) and the route's authentication share the
 * lookup. An OAuth access token is verified (signature, expiry, audience) and then names its
 * connected app's key row, looked up like a key, its scopes narrowed to those of the token's own
 * grant. Undefined without such a header; the promise answers undefined for an unknown, revoked or
 * refused one.
 */
export function bearerCaller(ctx: Context, deps: KeyDeps): Promise<Caller | undefined> | undefined {
  const match = BEARER.exec(ctx.get('authorization'));
  if (!match) return undefined;
  let lookup = lookups.get(ctx);
  if (!lookup) {
    lookup = lookUp(ctx, deps, match[1]);
    lookups.set(ctx, lookup);
  }
  return lookup;
}

/** The caller behind `Authorization: Bearer <key>`; 401 for a missing, malformed, unknown or revoked key. */
export async function authenticate(ctx: ApiContext, deps: KeyDeps): Promise<Caller> {
  const challenge = () => ({ 'WWW-Authenticate': bearerChallenge(ctx, deps) });
  if (!ctx.get('authorization')) throw errors.unauthorized(t('errors.auth.no_key'), undefined, challenge());
  const lookup = bearerCaller(ctx, deps);
  if (!lookup) throw errors.unauthorized(t('errors.http.authorization_not_bearer'), undefined, challenge());
  const caller = await lookup;
  if (!caller) throw errors.unauthorized(t('errors.http.api_key_unknown_revoked'), undefined, challenge());
  ctx.state.caller = caller;
  return caller;
}
