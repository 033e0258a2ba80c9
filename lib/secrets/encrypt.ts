import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { keysOf } from './keyring';

/**
 * Secrets the service must use again later (webhook signing keys) are kept encrypted with
 * AES-256-GCM under a key derived from SVC_SECRET_KEY, never in the clear. A rotated SVC_SECRET_KEY
 * keeps them readable while the old key is in SVC_SECRET_KEY_PREVIOUS (lib/secrets/keyring.ts), and
 * `npm run -s admin -- reencrypt-secrets` moves them to the new key.
 */
function keyFor(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `svc:${purpose}`, 32));
}

export function encryptSecret(secret: Buffer, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function decryptWith(key: Buffer, purpose: string, bytes: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', keyFor(key, purpose), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** The plaintext, under the current key or a previous one; throws when none of them sealed it. */
export function decryptSecret(secret: Buffer, purpose: string, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const keys = keysOf(secret);
  for (const [index, key] of keys.entries()) {
    try {
      return decryptWith(key, purpose, bytes);
    } catch (error) {
      if (index === keys.length - 1) throw error;
    }
  }
  throw new Error('unreachable');
}

/** Whether the current key (not a previous one) sealed it: reencrypt-secrets leaves those alone. */
export function sealedWithCurrentKey(secret: Buffer, purpose: string, sealed: string): boolean {
  try {
    decryptWith(secret, purpose, Buffer.from(sealed, 'base64url'));
    return true;
  } catch {
    return false;
  }
}
