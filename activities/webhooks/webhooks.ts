import type { Db } from '../../db/connect';
import { Delivery, DeliveryAttempt, Event, Webhook } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId, randomBase62 } from '../../lib/ids';
import { page } from '../../lib/paging';
import { decryptSecret, encryptSecret } from '../../lib/secrets/encrypt';
import { EVENT_NAMES } from '../events/outbox';
import { resolveTarget } from './targets';

const PURPOSE = 'webhook-secret';

export interface WebhookDeps {
  db: Db;
  secret: Buffer;
  allowedHosts: readonly string[];
}

function newSigningSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

/** `*` or names from SPEC's Events table; anything else is refused so a typo does not subscribe to nothing. */
function checkEvents(events: string[] | undefined): string[] | null {
  if (!events || events.includes('*')) return null;
  const unknown = events.filter((event) => !(EVENT_NAMES as readonly string[]).includes(event));
  if (unknown.length > 0) {
    throw errors.invalidRequest(
      t('errors.webhooks.unknown_event', { events: unknown.join(', ') }),
      unknown.map((event) => ({ path: 'events', message: `unknown event ${event}` })),
    );
  }
  return [...new Set(events)];
}

export async function createWebhook(
  deps: WebhookDeps,
  tenantId: string,
  input: { url: string; events?: string[]; description?: string },
): Promise<{ webhook: Webhook; secret: string }> {
  const events = checkEvents(input.events);
  await resolveTarget(input.url, deps.allowedHosts);
  const secret = newSigningSecret();
  const webhook = await Webhook.query(deps.db).insertAndFetch({
    id: newId('wh'),
    tenant_id: tenantId,
    url: input.url,
    events,
    description: input.description ?? null,
    secret_ciphertext: encryptSecret(deps.secret, PURPOSE, secret),
  });
  return { webhook, secret };
}

export async function findWebhook(db: Db, tenantId: string, id: string): Promise<Webhook> {
  const webhook = await Webhook.query(db).findById(id).where({ tenant_id: tenantId }).whereNull('deleted_at');
  if (!webhook) throw errors.notFound(t('errors.webhooks.no_such_webhook'));
  return webhook;
}

/** One page of the tenant's webhooks, newest first. */
export async function listWebhooks(db: Db, tenantId: string, list: { limit: number; cursor?: string }) {
  return page(Webhook.query(db).where('webhooks.tenant_id', tenantId).whereNull('webhooks.deleted_at'), { ...list, table: 'webhooks' });
}

/** Deleting stops deliveries not yet made; the delivery log stays. */
export async function deleteWebhook(db: Db, tenantId: string, id: string): Promise<void> {
  await findWebhook(db, tenantId, id);
  await Webhook.query(db).findById(id).patch({ deleted_at: new Date() });
}

/** A new secret; the old one keeps signing alongside it for `overlapMs`, so receivers can switch without losing events. */
export async function rotateSecret(
  deps: WebhookDeps,
  tenantId: string,
  id: string,
  overlapMs: number,
): Promise<{ webhook: Webhook; secret: string }> {
  const webhook = await findWebhook(deps.db, tenantId, id);
  const secret = newSigningSecret();
  const rotated = await webhook.$query(deps.db).patchAndFetch({
    secret_ciphertext: encryptSecret(deps.secret, PURPOSE, secret),
    previous_secret_ciphertext: overlapMs > 0 ? webhook.secret_ciphertext : null,
    previous_secret_expires_at: overlapMs > 0 ? new Date(Date.now() + overlapMs) : null,
  });
  return { webhook: rotated, secret };
}

/** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
export function signingSecrets(webhook: Webhook, key: Buffer, now = new Date()): string[] {
  const secrets = [decryptSecret(key, PURPOSE, webhook.secret_ciphertext)];
  if (webhook.previous_secret_ciphertext && webhook.previous_secret_expires_at && webhook.previous_secret_expires_at > now) {
    secrets.push(decryptSecret(key, PURPOSE, webhook.previous_secret_ciphertext));
  }
  return secrets;
}

export interface DeliveryLog {
  delivery: Delivery;
  /** The event's name. */
  event: string;
  attempts: DeliveryAttempt[];
}

/** One page of the deliveries to a webhook, newest first, each with its event's name and its attempts. */
export async function deliveriesOf(
  db: Db,
  webhookId: string,
  list: { limit: number; cursor?: string },
): Promise<{ items: DeliveryLog[]; next_cursor: string | null }> {
  const { items: deliveries, next_cursor } = await page(
    Delivery.query(db).where({ 'deliveries.target_kind': 'webhook', 'deliveries.target_id': webhookId }),
    { ...list, table: 'deliveries' },
  );
  const ids = deliveries.map((delivery) => delivery.id);
  const [attempts, events] = ids.length
    ? await Promise.all([
        DeliveryAttempt.query(db).whereIn('delivery_id', ids).orderBy('attempt'),
        Event.query(db).whereIn(
          'id',
          deliveries.map((delivery) => delivery.event_id),
        ),
      ])
    : [[], []];
  const names = new Map(events.map((event) => [event.id, event.event]));
  return {
    items: deliveries.map((delivery) => ({
      delivery,
      event: names.get(delivery.event_id) ?? '',
      attempts: attempts.filter((attempt) => attempt.delivery_id === delivery.id),
    })),
    next_cursor,
  };
}
