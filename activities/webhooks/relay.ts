import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/log';
import { isContactEvent } from '../events/outbox';
import type { Workflows } from '../workflows';
import type { DeliveryContext } from './delivery';
import { type FirstAttemptDeps, FirstAttempts } from './first-attempts';

export interface RelayDeps {
  db: Db;
  workflows: Workflows;
  config: Config;
  /** Where each run's timing line goes (debug). */
  log?: Logger;
}

export interface DeliveryTarget {
  kind: 'webhook' | 'inbox';
  id: string;
  url: string;
}

/**
 * Every endpoint each event goes to: its tenant's webhooks that subscribe to it (and existed when it
 * happened), and for a contact or offer event the inbox_url of that side of the contact. Two queries
 * for the whole batch, whatever its size.
 */
async function targetsFor(trx: Knex.Transaction, events: Event[]): Promise<Map<string, DeliveryTarget[]>> {
  const contactIds = [...new Set(events.filter((e) => e.contact_id && isContactEvent(e.event)).map((e) => e.contact_id!))];
  const [webhooks, contacts] = await Promise.all([
    Webhook.query(trx)
      .whereIn('tenant_id', [...new Set(events.map((e) => e.tenant_id))])
      .whereNull('deleted_at'),
    contactIds.length > 0 ? Contact.query(trx).whereIn('id', contactIds) : Promise.resolve([] as Contact[]),
  ]);
  const contact = new Map(contacts.map((row) => [row.id, row]));
  const targets = new Map<string, DeliveryTarget[]>();
  for (const event of events) {
    const found: DeliveryTarget[] = webhooks
      .filter(
        (webhook) =>
          webhook.tenant_id === event.tenant_id &&
          webhook.created_at <= event.created_at &&
          (!webhook.events || webhook.events.includes(event.event)),
      )
      .map((webhook) => ({ kind: 'webhook' as const, id: webhook.id, url: webhook.url }));
    const inbox = event.contact_id && isContactEvent(event.event) ? contact.get(event.contact_id) : undefined;
    if (inbox?.inbox_url) found.push({ kind: 'inbox', id: inbox.id, url: inbox.inbox_url });
    targets.set(event.id, found);
  }
  return targets;
}

/** Moves a batch of new events from the outbox to deliveries (one per event and endpoint, unique, so a batch run twice adds nothing). */
async function moveBatch(deps: FirstAttemptDeps, batchSize: number): Promise<Event[]> {
  return deps.db.transaction(async (trx) => {
    const events = await Event.query(trx)
      .whereNull('dispatched_at')
      .orderBy('created_at')
      .orderBy('id')
      .limit(batchSize)
      .forUpdate()
      .skipLocked();
    if (events.length === 0) return [];
    const targets = await targetsFor(trx, events);
    const rows = events.flatMap((event) =>
      targets.get(event.id)!.map((target) => ({
        id: newId('dlv'),
        tenant_id: event.tenant_id,
        event_id: event.id,
        target_kind: target.kind,
        target_id: target.id,
        url: target.url,
      })),
    );
    for (let i = 0; i < rows.length; i += 500)
      await Delivery.query(trx)
        .insert(rows.slice(i, i + 500))
        .onConflict(['target_kind', 'target_id', 'event_id'])
        .ignore();
    await Event.query(trx)
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .patch({ dispatched_at: new Date() });
    return events;
  });
}

/** The events, webhooks and inbox contacts of a batch of deliveries, in at most three queries (events already read are not read again). */
async function contextsOf(deps: FirstAttemptDeps, deliveries: Delivery[], known: Event[]): Promise<DeliveryContext[]> {
  const ids = (kind: 'webhook' | 'inbox') => [...new Set(deliveries.filter((d) => d.target_kind === kind).map((d) => d.target_id))];
  const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
  const event = byId(known);
  const missing = [...new Set(deliveries.map((d) => d.event_id).filter((id) => !event.has(id)))];
  const [events, webhooks, inboxes] = await Promise.all([
    missing.length > 0 ? Event.query(deps.db).whereIn('id', missing) : [],
    Webhook.query(deps.db).whereIn('id', ids('webhook')),
    ids('inbox').length > 0 ? Contact.query(deps.db).whereIn('id', ids('inbox')) : [],
  ]);
  for (const row of events) event.set(row.id, row);
  const [webhook, inbox] = [byId(webhooks), byId(inboxes)];
  return deliveries.map((delivery) => ({
    delivery,
    event: event.get(delivery.event_id)!,
    webhook: delivery.target_kind === 'webhook' ? webhook.get(delivery.target_id) : undefined,
    inbox: delivery.target_kind === 'inbox' ? inbox.get(delivery.target_id) : undefined,
  }));
}

/**
 * Moves batches of new events from the outbox to deliveries and makes their first attempts, batch
 * after batch while the outbox has full ones (for a quarter of the activity's time): the next batch
 * is moved, and the last one's records written, while this one posts (two batches in flight at
 * most). The first batch also takes every delivery a crashed run left without a first attempt.
 * Only failures start retry workflows. Answers the number of events moved.
 */
export async function dispatchOutbox(deps: FirstAttemptDeps, batchSize: number): Promise<number> {
  const startedAt = Date.now();
  const timeoutMs = deps.config.durations.activityTimeoutMs;
  // Half the activity's time for first attempts; what is left over goes to retry workflows untried.
  const attempts = new FirstAttempts(deps, startedAt + timeoutMs / 2);
  const timings: Array<{ moveMs: number; readMs: number }> = [];
  let moved = 0;
  let previous: Awaited<ReturnType<FirstAttempts['take']>> | undefined;
  for (let round = 0; ; round += 1) {
    const began = performance.now();
    const events = await moveBatch(deps, batchSize);
    const movedAt = performance.now();
    moved += events.length;
    const pending = Delivery.query(deps.db).whereNull('workflow_started_at').orderBy('created_at').orderBy('id');
    const deliveries =
      round === 0
        ? await pending.limit(batchSize * 5)
        : await pending.whereIn(
            'event_id',
            events.map((event) => event.id),
          );
    const current = await attempts.take(await contextsOf(deps, deliveries, events));
    timings.push({ moveMs: movedAt - began, readMs: performance.now() - movedAt });
    if (events.length < batchSize || Date.now() - startedAt > timeoutMs / 4) break;
    await previous?.posted;
    previous = current;
  }
  const rounds = await attempts.finish();
  if (rounds.some((r) => r.deliveries > 0))
    deps.log?.debug('outbox relay run', {
      moved,
      tookMs: Date.now() - startedAt,
      rounds: rounds.map((r, i) => ({ ...timings[i], ...r })),
    });
  return moved;
}
