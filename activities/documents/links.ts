import { mac, readToken, signToken, verifyMac } from '../secrets/signed';

/**
 * A signer's sign link token: the signer id and a MAC of it, so links can be shown again at any
 * time without storing them, and a guessed or altered token fails the constant-time check.
 */
export function signerToken(secret: Buffer, signerId: string): string {
  return `${signerId}.${mac(secret, 'sign-link', signerId)}`;
}

export function signerIdFromToken(secret: Buffer, token: string): string | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const signerId = token.slice(0, dot);
  return /^sgn_[0-9A-Za-z]{20}$/.test(signerId) && verifyMac(secret, 'sign-link', signerId, token.slice(dot + 1)) ? signerId : undefined;
}

export function signUrl(appUrl: string, secret: Buffer, signerId: string): string {
  return `${appUrl}/sign/${signerToken(secret, signerId)}`;
}

/** A short-lived URL that serves one sealed revision of a document (DESIGN: signed, 5 minutes). */
export function documentDownloadUrl(publicUrl: string, secret: Buffer, input: { documentId: string; sha256: string; ttlMs: number; now?: number }) {
  const expires = (input.now ?? Date.now()) + input.ttlMs;
  const token = signToken(secret, 'document-download', { d: input.documentId, h: input.sha256, exp: expires });
  return { url: `${publicUrl}/files/documents/${input.documentId}.pdf?token=${token}`, expires_at: new Date(expires).toISOString() };
}

export function readDocumentDownload(secret: Buffer, documentId: string, token: string | undefined): { sha256: string } | undefined {
  const payload = readToken<{ d: string; h: string; exp: number }>(secret, 'document-download', token);
  return payload && payload.d === documentId ? { sha256: payload.h } : undefined;
}
