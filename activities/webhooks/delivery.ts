import fs from 'node:fs';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';
import type { Db } from '../../db/connect';
import { Contact, Delivery, DeliveryAttempt, Event, Webhook } from '../../db/models';
import { ServiceError } from '../../lib/errors';
import { inboxSecret } from '../contacts/inbox';
import { signatureHeader } from './signature';
import { resolveTarget, type Target } from './targets';
import { signingSecrets } from './webhooks';

export interface DeliveryDeps {
  db: Db;
  secret: Buffer;
  allowedHosts: readonly string[];
  timeoutMs: number;
  caFile?: string;
}

export interface PostResult {
  statusCode?: number;
  error?: string;
  latencyMs: number;
}

const USER_AGENT = 'AgentsAPI-Webhooks/1';
let extraCa: { file: string; context: tls.SecureContext } | undefined;

/**
 * The public roots plus the configured extra CA (a local test receiver's certificate), built once:
 * parsing every root for each request would block the event loop under load. Undefined: the defaults.
 */
function secureContextFor(file: string | undefined): tls.SecureContext | undefined {
  if (!file) return undefined;
  if (extraCa?.file !== file)
    extraCa = { file, context: tls.createSecureContext({ ca: [...tls.rootCertificates, fs.readFileSync(file)] }) };
  return extraCa.context;
}

/**
 * One POST to a checked target: the socket goes to the address that was checked (no second DNS
 * answer), TLS is verified against the URL's host name, redirects are not followed (a 3xx fails),
 * and the whole exchange ends at `timeoutMs`. Only the status is kept; the body is drained unread.
 */
export function post(
  target: Target,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; caFile?: string },
): Promise<PostResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  const secureContext = secureContextFor(options.caFile);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: Math.round(performance.now() - started) });
    };
    const request = https.request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': USER_AGENT },
        lookup: pinned,
        // SNI carries host names only (RFC 6066); an IP target is verified against the certificate's IP entries.
        ...(net.isIP(target.url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: target.url.hostname }),
        agent: false,
        ...(secureContext ? { secureContext } : {}),
      },
      (response) => {
        response.resume();
        response.on('end', () => finish({ statusCode: response.statusCode }));
        response.on('error', () => finish({ statusCode: response.statusCode }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error) => finish({ error: error.message }));
    request.end(body);
  });
}

export interface AttemptResult {
  /** Nothing more to do: delivered, or the delivery no longer wanted (webhook deleted). */
  done: boolean;
  delivered: boolean;
  statusCode?: number;
  error?: string;
}

/** The JSON body every receiver gets: SPEC's `{event, data}` with an id and a time (DESIGN). */
export function payloadOf(event: Event): string {
  return JSON.stringify({ id: event.id, event: event.event, created_at: event.created_at.toISOString(), data: event.data });
}

/**
 * Attempt `attempt` of a delivery: the URL is checked again (a host may have moved to a private
 * address since it was registered), signed with the webhook's secrets, posted, and recorded.
 */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string, attempt: number): Promise<AttemptResult> {
  const delivery = await Delivery.query(deps.db).findById(deliveryId);
  if (delivery?.status !== 'pending') return { done: true, delivered: delivery?.status === 'delivered' };
  const webhook = delivery.target_kind === 'webhook' ? await Webhook.query(deps.db).findById(delivery.target_id) : undefined;
  const inbox = delivery.target_kind === 'inbox' ? await Contact.query(deps.db).findById(delivery.target_id) : undefined;
  const gone =
    delivery.target_kind === 'webhook'
      ? (!webhook || webhook.deleted_at) && 'the webhook was deleted'
      : inbox?.inbox_url !== delivery.url && 'the inbox_url was removed or changed';
  if (gone) {
    await Delivery.query(deps.db)
      .findById(deliveryId)
      .where({ status: 'pending' })
      .patch({ status: 'failed', failed_at: new Date(), last_error: gone });
    return { done: true, delivered: false };
  }
  const event = (await Event.query(deps.db).findById(delivery.event_id))!;
  const body = payloadOf(event);
  const headers: Record<string, string> = { 'x-webhook-id': event.id };
  const secrets = webhook ? signingSecrets(webhook, deps.secret) : inboxSecret(inbox!, deps.secret);
  if (secrets.length > 0) headers['x-webhook-signature'] = signatureHeader(secrets, Math.floor(Date.now() / 1000), body);

  const startedAt = new Date();
  let result: PostResult;
  try {
    const target = await resolveTarget(delivery.url, deps.allowedHosts);
    result = await post(target, body, headers, { timeoutMs: deps.timeoutMs, caFile: deps.caFile });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    result = { error: `refused: ${error.message}`, latencyMs: 0 };
  }
  const delivered = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  const error = result.error ?? (delivered ? undefined : `HTTP ${result.statusCode}`);
  await DeliveryAttempt.query(deps.db)
    .insert({
      delivery_id: deliveryId,
      attempt,
      started_at: startedAt,
      latency_ms: result.latencyMs,
      status_code: result.statusCode ?? null,
      error: error ?? null,
    })
    .onConflict(['delivery_id', 'attempt'])
    .ignore();
  await Delivery.query(deps.db)
    .findById(deliveryId)
    .where({ status: 'pending' })
    .patch({
      attempts: attempt,
      last_status_code: result.statusCode ?? null,
      last_error: error ?? null,
      ...(delivered ? { status: 'delivered', delivered_at: new Date() } : {}),
    });
  return { done: delivered, delivered, statusCode: result.statusCode, error };
}

/** The last attempt failed and the retry window is over. */
export async function giveUp(db: Db, deliveryId: string): Promise<void> {
  await Delivery.query(db).findById(deliveryId).where({ status: 'pending' }).patch({ status: 'failed', failed_at: new Date() });
}
