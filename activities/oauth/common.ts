import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connect';
import { sha256Hex } from '../../lib/ids';
import { DEFAULT_SCOPES } from '../accounts/scopes';
import type { FetchDocument } from './clients';

// What the authorization (grants.ts) and the token side (tokens.ts) of the OAuth server share.

/** An authorization code lives this long and is used once. */
export const CODE_TTL_MS = 60_000;

export interface OAuthDeps {
  db: Db;
  secret: Buffer;
  /** The service's public base URL: the issuer, and the base of its resources. */
  issuer: string;
  accessTtlMs: number;
  /** Fetches a client's metadata document: bounded, after sign-in only (document-fetcher.ts). */
  fetchDocument: FetchDocument;
  /** Metadata documents' rows no connected app uses are removed this long after their fetch. */
  unusedClientTtlMs?: number;
}

/** The two protected resources (RFC 8707 indicators): the MCP endpoint and the REST API. */
export function resourcesOf(issuer: string): { mcp: string; api: string } {
  return { mcp: `${issuer}/mcp`, api: `${issuer}/v1` };
}

/** The scopes a client may ask for: every scope a new key has; `documents:sign` is never consented to. */
export const CONSENTABLE_SCOPES: readonly string[] = DEFAULT_SCOPES;

/** Codes and refresh tokens are stored as their SHA-256 only. */
export const hashOf = (token: string) => sha256Hex(token);
/** A code or refresh token: 32 random bytes. */
export const opaque = () => randomBytes(32).toString('base64url');
