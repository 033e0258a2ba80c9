import fs from 'node:fs';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import tls from 'node:tls';
import type { Db } from '../../db/connect';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import { ServiceError } from '../../lib/errors';
import { webhookAttempts, webhookFailures } from '../../lib/metrics';
import { openEventData } from '../events/outbox';
import { inboxSecret } from './inbox';
import { type SigningKey, signatureHeader, signingKey, standardHeaders } from './signature';
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
export function secureContextFor(file: string | undefined): tls.SecureContext | undefined {
  if (!file) return undefined;
  if (extraCa?.file !== file)
    extraCa = { file, context: tls.createSecureContext({ ca: [...tls.rootCertificates, fs.readFileSync(file)] }) };
  return extraCa.context;
}

/** A DNS lookup that answers only the checked address: the socket cannot reach a second DNS answer. */
export function pinnedLookup(target: Target): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
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
  options: { timeoutMs: number; caFile?: string; agent?: https.Agent },
): Promise<PostResult> {
  const started = performance.now();
  const pinned = pinnedLookup(target);
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
        // A batch's keep-alive agent for this endpoint (one pool, TLS sessions resumed), or a connection of its own.
        agent: options.agent ?? false,
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

/** The JSON body every receiver gets: SPEC's `{event, data}` with an id and a time (DESIGN), its sealed links opened. */
export function payloadOf(event: Event, key: Buffer): string {
  const data = openEventData(key, event.data);
  return JSON.stringify({ id: event.id, event: event.event, created_at: event.created_at.toISOString(), data });
}

/** A delivery with what it goes to: its webhook or its contact's inbox (whichever it targets), and its event. */
export interface DeliveryContext {
  delivery: Delivery;
  webhook?: Webhook;
  inbox?: Contact;
  event: Event;
}

/** Why a pending delivery is no longer wanted, or undefined while its target still takes it. */
export function goneReason({ delivery, webhook, inbox }: DeliveryContext): string | undefined {
  if (delivery.target_kind === 'webhook') return !webhook || webhook.deleted_at ? 'the webhook was deleted' : undefined;
  return inbox?.inbox_url !== delivery.url ? 'the inbox_url was removed or changed' : undefined;
}

/** Ends a delivery whose target is gone (webhook deleted, inbox_url changed): nothing is posted. */
export async function dropDelivery(db: Db, deliveryId: string, reason: string): Promise<void> {
  await Delivery.query(db)
    .findById(deliveryId)
    .where({ status: 'pending' })
    .patch({ status: 'failed', failed_at: new Date(), last_error: reason, workflow_started_at: new Date() });
}

/** The secrets that sign a delivery's requests now: its webhook's (two during a rotation), or its inbox's. */
export function secretsOf(context: DeliveryContext, key: Buffer): string[] {
  return context.webhook ? signingSecrets(context.webhook, key) : inboxSecret(context.inbox!, key);
}

/**
 * The signed request of one attempt: the body, the event id and the signatures made now with the
 * target's secrets, in both schemes: this service's `X-Webhook-Signature` (existing receivers) and
 * Standard Webhooks' `webhook-id`/`webhook-timestamp`/`webhook-signature`, over the same timestamp.
 */
export function signedRequest(
  context: DeliveryContext,
  key: Buffer,
  keys: SigningKey[] = secretsOf(context, key).map(signingKey),
): { body: string; headers: Record<string, string> } {
  const body = payloadOf(context.event, key);
  const headers: Record<string, string> = { 'x-webhook-id': context.event.id };
  if (keys.length > 0) {
    const timestamp = Math.floor(Date.now() / 1000);
    headers['x-webhook-signature'] = signatureHeader(keys, timestamp, body);
    Object.assign(headers, standardHeaders(keys, context.event.id, timestamp, body));
  }
  return { body, headers };
}

/** One attempt's outcome, to be written to the attempt log and the delivery. */
export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  result: PostResult;
}

/** Whether a post was answered with a 2xx, and the error line the attempt log shows when it was not. */
export function outcomeOf(result: PostResult): { delivered: boolean; error?: string } {
  const delivered = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  return { delivered, error: result.error ?? (delivered ? undefined : `HTTP ${result.statusCode}`) };
}

/**
 * Writes attempts (their log lines and their deliveries' state) in one statement, however many: the
 * rows travel as one JSON parameter (`json_to_recordset`), so a batch of any size is one round trip
 * and one plan on PostgreSQL and PGlite alike. A delivery that succeeded is done and needs no retry
 * workflow, so it is marked handed off as well. An attempt already logged (a retried activity) is not
 * logged twice.
 */
export async function recordAttempts(db: Db, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map(({ deliveryId, attempt, startedAt, result }) => {
    const { delivered, error } = outcomeOf(result);
    webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'failed' });
    const { latencyMs, statusCode } = result;
    return {
      id: deliveryId,
      attempt,
      started_at: startedAt,
      latency_ms: latencyMs,
      status_code: statusCode ?? null,
      error: error ?? null,
      delivered,
    };
  });
  await db.raw(
    `with v as (
       select * from json_to_recordset(?::json)
         as r(id text, attempt int, started_at timestamptz, latency_ms int, status_code int, error text, delivered boolean)
     ), logged as (
       insert into delivery_attempts (delivery_id, attempt, started_at, latency_ms, status_code, error)
       select id, attempt, started_at, latency_ms, status_code, error from v
       on conflict (delivery_id, attempt) do nothing
     )
     update deliveries d set attempts = v.attempt, last_status_code = v.status_code, last_error = v.error,
       status = case when v.delivered then 'delivered' else d.status end,
       delivered_at = case when v.delivered then now() else d.delivered_at end,
       workflow_started_at = case when v.delivered then coalesce(d.workflow_started_at, now()) else d.workflow_started_at end
     from v where d.id = v.id and d.status = 'pending'`,
    [JSON.stringify(rows)],
  );
}

/**
 * The URL checked again (a host may have moved to a private address since it was registered), or,
 * when the check refuses it, the failed attempt that is: recorded like any other, not an error.
 */
export async function checkedTarget(url: string, allowedHosts: readonly string[]): Promise<{ target: Target } | { refused: PostResult }> {
  try {
    return { target: await resolveTarget(url, allowedHosts) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { refused: { error: `refused: ${error.message}`, latencyMs: 0 } };
  }
}

/** Posts one attempt to a checked target. */
export function send(
  deps: DeliveryDeps,
  target: Target,
  request: { body: string; headers: Record<string, string> },
  agent?: https.Agent,
): Promise<PostResult> {
  return post(target, request.body, request.headers, { timeoutMs: deps.timeoutMs, caFile: deps.caFile, agent });
}

/**
 * Attempt `attempt` of a delivery (from its retry workflow): the URL is checked again (a host may
 * have moved to a private address since it was registered), signed with the webhook's secrets,
 * posted, and recorded.
 */
export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string, attempt: number): Promise<AttemptResult> {
  const delivery = await Delivery.query(deps.db).findById(deliveryId);
  if (delivery?.status !== 'pending') return { done: true, delivered: delivery?.status === 'delivered' };
  const context: DeliveryContext = {
    delivery,
    webhook: delivery.target_kind === 'webhook' ? await Webhook.query(deps.db).findById(delivery.target_id) : undefined,
    inbox: delivery.target_kind === 'inbox' ? await Contact.query(deps.db).findById(delivery.target_id) : undefined,
    event: (await Event.query(deps.db).findById(delivery.event_id))!,
  };
  const gone = goneReason(context);
  if (gone) {
    await dropDelivery(deps.db, deliveryId, gone);
    return { done: true, delivered: false };
  }
  const startedAt = new Date();
  const checked = await checkedTarget(delivery.url, deps.allowedHosts);
  const result = 'refused' in checked ? checked.refused : await send(deps, checked.target, signedRequest(context, deps.secret));
  await recordAttempts(deps.db, [{ deliveryId, attempt, startedAt, result }]);
  const { delivered, error } = outcomeOf(result);
  return { done: delivered, delivered, statusCode: result.statusCode, error };
}

/** The last attempt failed and the retry window is over. */
export async function giveUp(db: Db, deliveryId: string): Promise<void> {
  const failed = await Delivery.query(db)
    .findById(deliveryId)
    .where({ status: 'pending' })
    .patch({ status: 'failed', failed_at: new Date() });
  if (failed) webhookFailures.inc();
}
