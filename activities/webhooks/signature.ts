import { createHmac } from 'node:crypto';

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (DESIGN).
 * During a secret rotation the header carries one v1 per secret still in use; a receiver accepts a
 * match with any of them.
 */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  return [`t=${timestamp}`, ...signatures].join(',');
}
