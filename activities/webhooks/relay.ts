import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { newId } from '../../lib/ids';
import { isContactEvent } from '../events/outbox';
import type { Workflows } from '../workflows';
import { type FirstAttemptDeps, firstAttempts } from './first-attempts';

export interface RelayDeps {
  db: Db;
  workflows: Workflows;
  config: Config;
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

/**
 * Moves a batch of new events from the outbox to deliveries (one per event and endpoint, unique, so
 * a batch run twice adds nothing), then makes the first attempt of every delivery not yet handed off
 * (this batch's, and any a crashed run left), starting retry workflows only for those that failed.
 */
export async function dispatchOutbox(deps: FirstAttemptDeps, batchSize: number): Promise<number> {
  const dispatched = await deps.db.transaction(async (trx) => {
    const events = await Event.query(trx)
      .whereNull('dispatched_at')
      .orderBy('created_at')
      .orderBy('id')
      .limit(batchSize)
      .forUpdate()
      .skipLocked();
    if (events.length === 0) return 0;
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
    return events.length;
  });
  // Half the activity's time for first attempts; what is left over goes to retry workflows untried.
  await firstAttempts(deps, batchSize * 5, deps.config.durations.activityTimeoutMs / 2);
  return dispatched;
}
