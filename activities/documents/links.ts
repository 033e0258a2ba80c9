import { idFromToken, idToken, readToken, signToken } from '../../lib/secrets/signed';

/** Sign-link tokens already made, per secret: one HMAC per signer and process, not one per document read. */
const signerTokens = new WeakMap<Buffer, Map<string, string>>();
const SIGNER_TOKENS_KEPT = 10_000;

/** A signer's sign link token: the signer id and its MAC (see idToken). */
export function signerToken(secret: Buffer, signerId: string): string {
  let made = signerTokens.get(secret);
  if (!made) {
    made = new Map();
    signerTokens.set(secret, made);
  }
  let token = made.get(signerId);
  if (token === undefined) {
    token = idToken(secret, 'sign-link', signerId);
    if (made.size >= SIGNER_TOKENS_KEPT) made.clear();
    made.set(signerId, token);
  }
  return token;
}

export function signerIdFromToken(secret: Buffer, token: string): string | undefined {
  return idFromToken(secret, 'sign-link', token, /^sgn_[0-9A-Za-z]{20}$/);
}

export function signUrl(appUrl: string, secret: Buffer, signerId: string): string {
  return `${appUrl}/sign/${signerToken(secret, signerId)}`;
}

/** A short-lived URL that serves one sealed revision of a document (DESIGN: signed, 5 minutes). */
export function documentDownloadUrl(
  publicUrl: string,
  secret: Buffer,
  input: { documentId: string; sha256: string; ttlMs: number; now?: number },
) {
  const expires = (input.now ?? Date.now()) + input.ttlMs;
  const token = signToken(secret, 'document-download', { d: input.documentId, h: input.sha256, exp: expires });
  return { url: `${publicUrl}/files/documents/${input.documentId}.pdf?token=${token}`, expires_at: new Date(expires).toISOString() };
}

export function readDocumentDownload(secret: Buffer, documentId: string, token: string | undefined): { sha256: string } | undefined {
  const payload = readToken<{ d: string; h: string; exp: number }>(secret, 'document-download', token);
  return payload && payload.d === documentId ? { sha256: payload.h } : undefined;
}
