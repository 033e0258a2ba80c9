import type { Db } from '../../db/connect';
import { newId } from '../../lib/ids';
import { oauthError } from './errors';

export interface OAuthClient {
  id: string;
  kind: 'metadata' | 'registered';
  client_name: string;
  redirect_uris: string[];
  fetched_at: Date | null;
}

/** How long a fetched Client ID Metadata Document is used before it is fetched again. */
export const DOCUMENT_CACHE_MS = 5 * 60_000;
const MAX_NAME = 200;
const MAX_REDIRECTS = 10;
const MAX_URI = 2000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A redirect URI a public client may register: https, http on loopback only (native apps, RFC
 * 8252), or a private-use scheme named after a domain (`com.example.app:/cb`); no fragment.
 */
export function acceptableRedirect(raw: unknown): raw is string {
  if (typeof raw !== 'string' || raw.length > MAX_URI) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.hash || url.username || url.password) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname);
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol);
}

/**
 * Whether a redirect URI asked for in an authorization request is one the client registered:
 * exactly, or, for an http one on loopback, with any port (RFC 8252 7.3, kept by OAuth 2.1: a
 * native app listens on the port its system gives it at the time; scheme, host, path and query
 * must still match).
 */
export function registeredRedirect(registered: readonly string[], asked: string): boolean {
  if (registered.includes(asked)) return true;
  if (!acceptableRedirect(asked)) return false;
  const url = new URL(asked);
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname)) return false;
  return registered.some((uri) => {
    const known = new URL(uri);
    return known.protocol === 'http:' && known.hostname === url.hostname && known.pathname === url.pathname && known.search === url.search;
  });
}

/** The text a client gives as its name: printable, trimmed, bounded; the client id when it gives none. */
function nameOf(raw: unknown, fallback: string): string {
  const text = typeof raw === 'string' ? raw.replace(/[\p{Cc}\p{Cf}]/gu, '').trim() : '';
  return (text || fallback).slice(0, MAX_NAME);
}

function redirectsOf(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_REDIRECTS || !raw.every(acceptableRedirect))
    throw oauthError(
      'invalid_redirect_uri',
      `redirect_uris must list 1 to ${MAX_REDIRECTS} URIs, each https, http on loopback, or a private-use scheme.`,
    );
  return raw;
}

/** Public clients only: a client that asks for another token endpoint authentication is refused. */
function checkPublic(document: Record<string, unknown>): void {
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw oauthError('invalid_client_metadata', 'Only public clients are accepted: token_endpoint_auth_method must be "none".');
  const grants = document.grant_types;
  if (grants !== undefined && (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')))
    throw oauthError('invalid_client_metadata', 'grant_types may list authorization_code and refresh_token only.');
  const responses = document.response_types;
  if (responses !== undefined && (!Array.isArray(responses) || responses.some((r) => r !== 'code')))
    throw oauthError('invalid_client_metadata', 'response_types may list code only.');
}

/** RFC 7591: registers a public client; its client_id is `oac_…`, no secret is issued. */
export async function registerClient(db: Db, document: unknown): Promise<OAuthClient> {
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw oauthError('invalid_client_metadata', 'Send the client metadata as a JSON object.');
  const metadata = document as Record<string, unknown>;
  checkPublic(metadata);
  const redirects = redirectsOf(metadata.redirect_uris);
  const id = newId('oac');
  const client = {
    id,
    kind: 'registered' as const,
    client_name: nameOf(metadata.client_name, id),
    redirect_uris: redirects,
    fetched_at: null,
  };
  await db('oauth_clients').insert({ ...client, redirect_uris: JSON.stringify(redirects) });
  return client;
}

/** Whether a client_id names a metadata document (an https URL with a path, per the CIMD draft). */
export function isMetadataUrl(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/' && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** Fetches a metadata document (activities/oauth/document-fetcher.ts: bounded, after sign-in only). */
export type FetchDocument = (url: string) => Promise<unknown>;

/**
 * What can be checked of an authorization request's client before the principal signs in, from this
 * database alone: a registered client and its redirect URI, or a client_id that is the URL of a
 * metadata document and a redirect URI of an acceptable form. Nothing is fetched (issue 37).
 */
export async function checkClientLocally(db: Db, clientId: unknown, redirectUri: unknown): Promise<void> {
  if (typeof clientId !== 'string' || !clientId || clientId.length > MAX_URI) throw oauthError('invalid_client', 'client_id is missing.');
  const row = (await db('oauth_clients').where({ id: clientId }).first()) as OAuthClient | undefined;
  const known = row?.kind === 'registered' ? row.redirect_uris : undefined;
  if (!known && !isMetadataUrl(clientId))
    throw oauthError('invalid_client', 'No such client: register it, or give the https URL of its metadata document.');
  if (typeof redirectUri !== 'string' || !(known ? registeredRedirect(known, redirectUri) : acceptableRedirect(redirectUri)))
    throw oauthError('invalid_request', 'redirect_uri is not one of the redirect URIs this client registered.');
}

/**
 * The client behind a client_id: a registered one from its row, a metadata document fetched under
 * the webhook URL rules (and kept DOCUMENT_CACHE_MS in its row), whose `client_id` must be its own
 * URL. `invalid_client` when there is no such client. Fetching a document also removes the rows of
 * documents fetched more than `unusedTtlMs` ago that no connected app uses.
 */
export async function resolveClient(
  db: Db,
  clientId: unknown,
  fetchDocument: FetchDocument,
  options: { unusedTtlMs?: number; now?: Date } = {},
): Promise<OAuthClient> {
  const now = options.now ?? new Date();
  if (typeof clientId !== 'string' || !clientId || clientId.length > MAX_URI) throw oauthError('invalid_client', 'client_id is missing.');
  const row = (await db('oauth_clients').where({ id: clientId }).first()) as OAuthClient | undefined;
  if (row?.kind === 'registered') return row;
  if (!isMetadataUrl(clientId))
    throw oauthError('invalid_client', 'No such client: register it, or give the https URL of its metadata document.');
  if (row?.fetched_at && now.getTime() - new Date(row.fetched_at).getTime() < DOCUMENT_CACHE_MS) return row;
  if (options.unusedTtlMs !== undefined) await removeUnusedClients(db, options.unusedTtlMs, now);
  const document = await fetchDocument(clientId);
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw oauthError('invalid_client', "The client's metadata document is not a JSON object.");
  const metadata = document as Record<string, unknown>;
  if (metadata.client_id !== clientId)
    throw oauthError('invalid_client', "The metadata document's client_id is not the URL it was fetched from.");
  try {
    checkPublic(metadata);
  } catch (error) {
    throw oauthError('invalid_client', (error as Error).message);
  }
  let redirects: string[];
  try {
    redirects = redirectsOf(metadata.redirect_uris);
  } catch (error) {
    throw oauthError('invalid_client', (error as Error).message);
  }
  const client: OAuthClient = {
    id: clientId,
    kind: 'metadata',
    client_name: nameOf(metadata.client_name, new URL(clientId).host),
    redirect_uris: redirects,
    fetched_at: now,
  };
  await db('oauth_clients')
    .insert({ ...client, redirect_uris: JSON.stringify(redirects) })
    .onConflict('id')
    .merge(['client_name', 'redirect_uris', 'fetched_at']);
  return client;
}

/**
 * Removes the rows of metadata documents last fetched more than `ttlMs` ago that no connected app
 * (live or revoked) names: a stranger's fetched documents do not pile up. A client that comes back
 * is fetched again.
 */
export async function removeUnusedClients(db: Db, ttlMs: number, now = new Date()): Promise<number> {
  return db('oauth_clients')
    .where({ kind: 'metadata' })
    .where('fetched_at', '<', new Date(now.getTime() - ttlMs))
    .whereNotExists(db('api_keys').whereRaw('api_keys.oauth_client_id = oauth_clients.id'))
    .delete();
}

export async function clientsById(db: Db, ids: string[]): Promise<OAuthClient[]> {
  return ids.length ? ((await db('oauth_clients').whereIn('id', ids)) as OAuthClient[]) : [];
}

/** Where a client sends the principal back: the hosts (or private-use schemes) of its redirect URIs. */
export function redirectHosts(uris: string[]): string {
  return [
    ...new Set(
      uris.map((uri) => {
        const url = new URL(uri);
        return url.host || url.protocol;
      }),
    ),
  ].join(', ');
}
