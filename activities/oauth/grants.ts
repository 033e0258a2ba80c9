import type { Db } from '../../db/connect';
import { ApiKey, Mandate, type Principal, Tenant } from '../../db/models';
import { newId, sha256Hex } from '../../lib/ids';
import { isBusinessPlus } from '../accounts/authorize';
import { SIGN_SCOPE } from '../accounts/scopes';
import { type Actor, recordAudit } from '../audit/audit';
import { checkClientLocally, type OAuthClient, registeredRedirect, resolveClient } from './clients';
import { CODE_TTL_MS, CONSENTABLE_SCOPES, hashOf, type OAuthDeps, opaque, resourcesOf } from './common';
import { OAuthError, oauthError } from './errors';

// The authorization side of the OAuth server: checking an authorization request (before and after
// sign-in) and the principal's approval, which yields a one-time code. Tokens are tokens.ts.

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  resource: string;
  scopes: string[];
}

/** A refusal that goes back to the client's redirect URI (RFC 6749 4.1.2.1), with its state. */
export class RedirectedError extends OAuthError {
  constructor(
    readonly redirectUri: string,
    readonly state: string | undefined,
    error: string,
    description: string,
  ) {
    super(error, description);
  }
}

type Params = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * Checks an authorization request: the client and its exact redirect URI first (a failure there is
 * shown to the principal, never redirected), then response_type=code, PKCE S256 (plain refused),
 * the resource (one of this service's: else invalid_target) and the scopes, each failure redirected.
 */
export async function checkAuthorizationRequest(deps: OAuthDeps, params: Params): Promise<AuthorizationRequest> {
  const client = await resolveClient(deps.db, params.client_id, deps.fetchDocument, { unusedTtlMs: deps.unusedClientTtlMs });
  const redirectUri = text(params.redirect_uri);
  if (!redirectUri || !registeredRedirect(client.redirect_uris, redirectUri))
    throw oauthError('invalid_request', 'redirect_uri is not one of the redirect URIs this client registered.');
  const state = text(params.state);
  const refuse = (error: string, description: string) => new RedirectedError(redirectUri, state, error, description);
  if (params.response_type !== 'code') throw refuse('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = text(params.code_challenge);
  if (params.code_challenge_method !== 'S256') throw refuse('invalid_request', 'PKCE with code_challenge_method=S256 is required.');
  if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) throw refuse('invalid_request', 'code_challenge must be a base64url SHA-256.');
  const resources = Object.values(resourcesOf(deps.issuer));
  const resource = text(params.resource) ?? resourcesOf(deps.issuer).mcp;
  if (!resources.includes(resource)) throw refuse('invalid_target', `resource must be one of ${resources.join(', ')}.`);
  const asked = text(params.scope)?.split(' ').filter(Boolean);
  const scopes = asked ? CONSENTABLE_SCOPES.filter((scope) => asked.includes(scope)) : [...CONSENTABLE_SCOPES];
  if (scopes.length === 0) throw refuse('invalid_scope', `Ask for some of: ${CONSENTABLE_SCOPES.join(' ')}.`);
  return { client, redirectUri, state, codeChallenge: challenge, resource, scopes };
}

/**
 * Before the principal signs in, only what this database can tell (the client and its redirect URI):
 * nothing is fetched, and a refusal is shown, never redirected (issue 37: no open redirector).
 */
export function checkBeforeSignIn(deps: OAuthDeps, params: Params): Promise<void> {
  return checkClientLocally(deps.db, params.client_id, params.redirect_uri);
}

/** The redirect back to the client: `params` plus its state and the issuer (RFC 9207). */
export function redirectBack(issuer: string, redirectUri: string, state: string | undefined, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

/** The principal's live connected app for a client, if any. */
export async function connectedAppOf(db: Db, principalId: string, clientId: string): Promise<ApiKey | undefined> {
  return ApiKey.query(db).where({ principal_id: principalId, kind: 'oauth', oauth_client_id: clientId }).whereNull('revoked_at').first();
}

/** The mandates in force of the principal's connected app for a client: what the consent page must show. */
export async function mandatesOfClient(db: Db, principalId: string, clientId: string): Promise<Mandate[]> {
  const app = await connectedAppOf(db, principalId, clientId);
  if (!app) return [];
  const active = await Mandate.query(db).where({ api_key_id: app.id, status: 'active' }).orderBy('confirmed_at');
  return active.filter((mandate) => mandate.isInForce());
}

/**
 * The principal approves: their connected app for this client (made on first consent, an API-key
 * row of kind `oauth` whose key hash no secret matches) gains the consented scopes, never
 * `documents:sign` (only a mandate adds it to the app); a one-time code bound to the request is
 * returned. The grant itself carries `documents:sign` only when the app holds mandates and the
 * consent page showed every one of them (`shownMandates`, the ids the page carried): a page that
 * said "it cannot sign for you" never yields a signing token.
 */
export async function approve(
  deps: OAuthDeps,
  principal: Principal,
  request: AuthorizationRequest,
  actor: Actor,
  shownMandates: readonly string[] = [],
): Promise<string> {
  const tenant = (await Tenant.query(deps.db).findById(principal.tenant_id))!;
  if (!isBusinessPlus(tenant.plan))
    throw new RedirectedError(request.redirectUri, request.state, 'access_denied', 'API access needs the Business plan or higher.');
  const code = opaque();
  await deps.db.transaction(async (trx) => {
    let app = await connectedAppOf(trx, principal.id, request.client.id);
    let scopes = request.scopes.filter((scope) => scope !== SIGN_SCOPE);
    if (app) {
      const inForce = (await Mandate.query(trx).where({ api_key_id: app.id, status: 'active' })).filter((mandate) => mandate.isInForce());
      if (inForce.length > 0 && inForce.every((mandate) => shownMandates.includes(mandate.id))) scopes = [...scopes, SIGN_SCOPE];
      const held = [...new Set([...app.scopes, ...request.scopes])];
      if (held.length !== app.scopes.length) await ApiKey.query(trx).patch({ scopes: held }).where({ id: app.id });
    } else {
      app = await ApiKey.query(trx).insertAndFetch({
        id: newId('key'),
        tenant_id: principal.tenant_id,
        principal_id: principal.id,
        label: request.client.client_name,
        prefix: 'oauth',
        key_hash: sha256Hex(`oauth:${opaque()}`),
        scopes: request.scopes.filter((scope) => scope !== SIGN_SCOPE),
        kind: 'oauth',
        oauth_client_id: request.client.id,
      });
      await recordAudit(trx, {
        tenantId: principal.tenant_id,
        actor,
        action: 'key.created',
        data: { api_key_id: app.id, label: app.label },
      });
    }
    await trx('oauth_codes').insert({
      code_hash: hashOf(code),
      client_id: request.client.id,
      api_key_id: app.id,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      resource: request.resource,
      scopes: JSON.stringify(scopes),
      expires_at: new Date(Date.now() + CODE_TTL_MS),
    });
  });
  return code;
}
