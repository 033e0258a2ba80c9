import { createHash, createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Db } from '../../db/connect';
import { ApiKey, Mandate } from '../../db/models';
import { newId, randomBase62 } from '../../lib/ids';
import { keysOf } from '../../lib/secrets/keyring';
import { SIGN_SCOPE } from '../accounts/scopes';
import { CODE_TTL_MS, hashOf, type OAuthDeps, opaque, resourcesOf } from './common';
import { oauthError } from './errors';

// The token side of the OAuth server: access tokens (JWTs), the token endpoint's code exchange and
// refresh rotation, and revocation (RFC 7009). The authorization side is grants.ts.

/** A refresh token lives this long unless rotated first (each is used once). */
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;
const ACCESS_PURPOSE = 'oauth-access-token';

/** The HS256 key of access tokens under one secret of the keyring: derived for this purpose only. */
function accessKey(secret: Buffer): Uint8Array {
  return createHmac('sha256', secret).update(ACCESS_PURPOSE).digest();
}

export interface AccessClaims {
  keyId: string;
  resource: string;
  clientId?: string;
  /** The grant the token came from (tokens issued before this claim existed have none). */
  grantId?: string;
  /** The scopes of its own grant (issue 37): the caller has no more of its key's scopes than these. */
  scopes: string[];
}

/**
 * Verifies an access token (signature under the current or a previous secret, issuer, expiry and an
 * audience among `audiences`); undefined for anything else. Whether its connected app is still
 * live is the key lookup's business (revocation takes effect at once).
 */
export async function verifyAccessToken(
  secret: Buffer,
  issuer: string,
  token: string,
  audiences: readonly string[],
): Promise<AccessClaims | undefined> {
  for (const key of keysOf(secret)) {
    try {
      const { payload } = await jwtVerify(token, accessKey(key), {
        algorithms: ['HS256'],
        issuer,
        audience: [...audiences],
        typ: 'at+jwt',
      });
      const keyId = payload.key_id;
      const resource = payload.aud;
      if (typeof keyId !== 'string' || typeof resource !== 'string') return undefined;
      const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
      const grantId = typeof payload.grant_id === 'string' ? payload.grant_id : undefined;
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
      return { keyId, resource, clientId, grantId, scopes };
    } catch {}
  }
  return undefined;
}

async function accessToken(deps: OAuthDeps, grant: Issue, scopes: string[]): Promise<string> {
  const { key } = grant;
  return new SignJWT({ key_id: key.id, client_id: grant.clientId, grant_id: grant.grantId, scope: scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(deps.issuer)
    .setAudience(grant.resource)
    .setSubject(key.principal_id)
    .setIssuedAt()
    .setJti(randomBase62(16))
    .setExpirationTime(Math.floor((Date.now() + deps.accessTtlMs) / 1000))
    .sign(accessKey(keysOf(deps.secret)[0]));
}

type Params = Record<string, unknown>;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

interface Issue {
  key: ApiKey;
  clientId: string;
  resource: string;
  scopes: string[];
  grantId: string;
  /** When the principal approved the grant. */
  grantedAt: Date;
}

/**
 * What a grant's tokens may do now: the scopes approved in the grant that its connected app still
 * holds. `documents:sign` when the grant was approved on a page that showed the app's mandates, or
 * when a mandate was granted to the app after the grant was approved (the principal granted it to
 * the app as it then was); never from a mandate the consent page did not show.
 */
async function grantScopes(trx: Db, grant: Issue): Promise<string[]> {
  const { key } = grant;
  let approved = grant.scopes;
  if (!approved.includes(SIGN_SCOPE) && key.scopes.includes(SIGN_SCOPE)) {
    const later = await Mandate.query(trx).where({ api_key_id: key.id, status: 'active' }).where('confirmed_at', '>=', grant.grantedAt);
    if (later.some((mandate) => mandate.isInForce())) approved = [...approved, SIGN_SCOPE];
  }
  return key.scopes.filter((scope) => approved.includes(scope));
}

async function issue(deps: OAuthDeps, trx: Db, grant: Issue): Promise<TokenResponse> {
  const refresh = opaque();
  await trx('oauth_refresh_tokens').insert({
    token_hash: hashOf(refresh),
    grant_id: grant.grantId,
    client_id: grant.clientId,
    api_key_id: grant.key.id,
    resource: grant.resource,
    scopes: JSON.stringify(grant.scopes),
    expires_at: new Date(Date.now() + REFRESH_TTL_MS),
  });
  // The token carries what its own grant may do now (a mandate may have added documents:sign since consent).
  const scopes = await grantScopes(trx, grant);
  return {
    access_token: await accessToken(deps, grant, scopes),
    token_type: 'Bearer',
    expires_in: Math.floor(deps.accessTtlMs / 1000),
    refresh_token: refresh,
    scope: scopes.join(' '),
  };
}

const invalidGrant = (description: string) => oauthError('invalid_grant', description);

function requireString(params: Params, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || !value || value.length > 4096) throw oauthError('invalid_request', `${name} is missing.`);
  return value;
}

/** The live connected app behind a code or refresh token; a revoked one ends the grant. */
async function liveApp(trx: Db, keyId: string): Promise<ApiKey> {
  const key = await ApiKey.query(trx).findById(keyId).whereNull('revoked_at');
  if (!key) throw invalidGrant('The connected app was revoked.');
  return key;
}

/**
 * POST /oauth/token with grant_type=authorization_code: the code (used once), its client,
 * redirect URI and resource must match, and the verifier must hash to the challenge (S256).
 */
export async function exchangeCode(deps: OAuthDeps, params: Params): Promise<TokenResponse> {
  const code = requireString(params, 'code');
  const clientId = requireString(params, 'client_id');
  const verifier = requireString(params, 'code_verifier');
  const redirectUri = requireString(params, 'redirect_uri');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) throw invalidGrant('code_verifier is malformed.');
  const outcome = await deps.db.transaction(async (trx) => {
    const row = await trx('oauth_codes')
      .where({ code_hash: hashOf(code) })
      .forUpdate()
      .first();
    if (!row || row.used_at || new Date(row.expires_at).getTime() < Date.now())
      return { refused: invalidGrant('The code is unknown, used or expired.') };
    // Used now, whatever follows: a code refused for a wrong verifier cannot be tried again.
    await trx('oauth_codes').where({ code_hash: row.code_hash }).update({ used_at: new Date() });
    if (row.client_id !== clientId) return { refused: invalidGrant('The code was issued to another client.') };
    if (row.redirect_uri !== redirectUri) return { refused: invalidGrant('redirect_uri differs from the authorization request.') };
    if (params.resource !== undefined && params.resource !== row.resource)
      return { refused: oauthError('invalid_target', 'resource differs from the authorization request.') };
    if (createHash('sha256').update(verifier).digest('base64url') !== row.code_challenge)
      return { refused: invalidGrant('The code_verifier does not match.') };
    const key = await liveApp(trx, row.api_key_id);
    const scopes = typeof row.scopes === 'string' ? JSON.parse(row.scopes) : row.scopes;
    const grantedAt = new Date(new Date(row.expires_at).getTime() - CODE_TTL_MS);
    return { tokens: await issue(deps, trx, { key, clientId, resource: row.resource, scopes, grantId: newId('grt'), grantedAt }) };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome.tokens;
}

/**
 * POST /oauth/token with grant_type=refresh_token: each refresh token is used once and replaced; a
 * used one presented again revokes every token of its grant (RFC 9700: a stolen token was replayed).
 */
export async function refreshTokens(deps: OAuthDeps, params: Params): Promise<TokenResponse> {
  const token = requireString(params, 'refresh_token');
  const clientId = requireString(params, 'client_id');
  const outcome = await deps.db.transaction(async (trx) => {
    const row = await trx('oauth_refresh_tokens')
      .where({ token_hash: hashOf(token) })
      .forUpdate()
      .first();
    if (!row || row.client_id !== clientId) throw invalidGrant('The refresh token is unknown.');
    if (row.revoked_at || new Date(row.expires_at).getTime() < Date.now()) throw invalidGrant('The refresh token is revoked or expired.');
    if (row.used_at) {
      await trx('oauth_refresh_tokens').where({ grant_id: row.grant_id }).whereNull('revoked_at').update({ revoked_at: new Date() });
      return { reused: true as const };
    }
    await trx('oauth_refresh_tokens').where({ token_hash: row.token_hash }).update({ used_at: new Date() });
    if (params.resource !== undefined && params.resource !== row.resource)
      throw oauthError('invalid_target', 'resource differs from the one this grant was issued for.');
    const key = await liveApp(trx, row.api_key_id);
    const scopes = typeof row.scopes === 'string' ? JSON.parse(row.scopes) : row.scopes;
    const first = await trx('oauth_refresh_tokens').where({ grant_id: row.grant_id }).min({ at: 'created_at' }).first();
    const grantedAt = new Date(first?.at ?? row.created_at);
    return { tokens: await issue(deps, trx, { key, clientId, resource: row.resource, scopes, grantId: row.grant_id, grantedAt }) };
  });
  // Committed: the revocation stands although the request is refused.
  if ('reused' in outcome) throw invalidGrant('The refresh token was already used: every token of this grant is revoked.');
  return outcome.tokens;
}

/**
 * POST /oauth/revoke (RFC 7009): a refresh token or an access token of this client ends its grant,
 * every refresh token of it revoked (an access token already out is self-contained and lives out its
 * few minutes). An unknown token, or another client's, changes nothing and is answered the same, so
 * the endpoint tells nobody whether a token exists.
 */
export async function revokeToken(deps: OAuthDeps, params: Params): Promise<void> {
  const token = requireString(params, 'token');
  const clientId = requireString(params, 'client_id');
  let grantId: string | undefined;
  const refresh = await deps
    .db('oauth_refresh_tokens')
    .where({ token_hash: hashOf(token) })
    .first();
  if (refresh) {
    if (refresh.client_id === clientId) grantId = refresh.grant_id;
  } else {
    const { mcp, api } = resourcesOf(deps.issuer);
    const claims = await verifyAccessToken(deps.secret, deps.issuer, token, [mcp, api]);
    if (claims?.clientId === clientId) grantId = claims.grantId;
  }
  if (grantId)
    await deps.db('oauth_refresh_tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: new Date() });
}
