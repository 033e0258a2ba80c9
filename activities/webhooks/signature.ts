import { createHmac, type KeyObject } from 'node:crypto';

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (DESIGN).
 * During a secret rotation the header carries one v1 per secret still in use; a receiver accepts a
 * match with any of them. A secret may come as a KeyObject made once for many requests (the relay's
 * rounds): HMAC then skips importing the key from the string each time.
 */
export function signatureHeader(secrets: Array<string | KeyObject>, timestamp: number, body: string): string {
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  return [`t=${timestamp}`, ...signatures].join(',');
}
