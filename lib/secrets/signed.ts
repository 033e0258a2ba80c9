import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../ids';
import { keysOf } from './keyring';

/** HMAC-SHA256 of a purpose-tagged message, base64url: the purpose keeps one kind of token from passing as another. */
export function mac(secret: Buffer, purpose: string, message: string): string {
  return createHmac('sha256', secret).update(`${purpose}\n${message}`).digest('base64url');
}

/** Whether `candidate` is the MAC of the message under the current key or a previous one (a rotation in progress). */
export function verifyMac(secret: Buffer, purpose: string, message: string, candidate: string): boolean {
  return keysOf(secret).some((key) => constantTimeEqual(mac(key, purpose, message), candidate));
}

/** `<message>.<mac>` with an expiry inside the message; undefined when forged, malformed or expired. */
export function signToken(secret: Buffer, purpose: string, payload: Record<string, string | number>): string {
  const message = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${message}.${mac(secret, purpose, message)}`;
}

export function readToken<T extends { exp: number }>(
  secret: Buffer,
  purpose: string,
  token: string | undefined,
  now = Date.now(),
): T | undefined {
  if (!token) return undefined;
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const message = token.slice(0, dot);
  if (!verifyMac(secret, purpose, message, token.slice(dot + 1))) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(message, 'base64url').toString('utf8')) as T;
    return typeof payload.exp === 'number' && payload.exp > now ? payload : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A link token naming one record: `<id>.<MAC of the id>`. The link can be shown again at any time
 * without storing it, and a guessed or altered one fails the constant-time check.
 */
export function idToken(secret: Buffer, purpose: string, id: string): string {
  return `${id}.${mac(secret, purpose, id)}`;
}

/** The id inside a link token, when it has the expected form and its MAC holds. */
export function idFromToken(secret: Buffer, purpose: string, token: string, idPattern: RegExp): string | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const id = token.slice(0, dot);
  return idPattern.test(id) && verifyMac(secret, purpose, id, token.slice(dot + 1)) ? id : undefined;
}
