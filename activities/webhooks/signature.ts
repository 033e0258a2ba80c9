import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * One `whsec_` secret as the two signatures of a delivery use it: as its text for this service's own
 * `X-Webhook-Signature`, and as the bytes Standard Webhooks takes from it (the base64 after
 * `whsec_`). Made once per secret for many requests (the relay's rounds): HMAC then skips importing
 * the key each time.
 */
export interface SigningKey {
  text: KeyObject;
  standard: KeyObject;
}

/** The keys of a `whsec_…` secret (its base62 body is valid base64: 32 characters, 24 bytes). */
export function signingKey(secret: string): SigningKey {
  return {
    text: createSecretKey(secret, 'utf8'),
    standard: createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64')),
  };
}

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (DESIGN).
 * During a secret rotation the header carries one v1 per secret still in use; a receiver accepts a
 * match with any of them.
 */
export function signatureHeader(keys: SigningKey[], timestamp: number, body: string): string {
  const signatures = keys.map((key) => `v1=${createHmac('sha256', key.text).update(`${timestamp}.${body}`).digest('hex')}`);
  return [`t=${timestamp}`, ...signatures].join(',');
}

/**
 * The Standard Webhooks headers (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`, one signature per
 * secret still in use, space-separated, so receivers verify with that standard's libraries.
 */
export function standardHeaders(keys: SigningKey[], id: string, timestamp: number, body: string): Record<string, string> {
  const signatures = keys.map((key) => `v1,${createHmac('sha256', key.standard).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}
