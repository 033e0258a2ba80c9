import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { newId } from '../../lib/ids';
import type { TemporalDeps } from '../../lib/temporal';
import { isContactEvent } from '../events/outbox';
import { type FirstAttemptDeps, firstAttempts } from './first-attempts';

export interface RelayDeps {
  db: Db;
  temporal: TemporalDeps;
  config: Config;
}

export interface DeliveryTarget {
  kind: 'webhook' | 'inbox';
  id: string;
  url: string;
}

/**
 * Every endpoint an event goes to: the tenant's webhooks that subscribe to it (and existed when it
 * happened), and for a contact or offer event the inbox_url of that side of the contact.
 */
async function targetsFor(trx: Knex.Transaction, event: Event): Promise<DeliveryTarget[]> {
  const webhooks = await Webhook.query(trx)
    .where({ tenant_id: event.tenant_id })
    .whereNull('deleted_at')
    .where('created_at', '<=', event.created_at);
  const targets: DeliveryTarget[] = webhooks
    .filter((webhook) => !webhook.events || webhook.events.includes(event.event))
    .map((webhook) => ({ kind: 'webhook' as const, id: webhook.id, url: webhook.url }));
  if (event.contact_id && isContactEvent(event.event)) {
    const contact = await Contact.query(trx).findById(event.contact_id);
    if (contact?.inbox_url) targets.push({ kind: 'inbox', id: contact.id, url: contact.inbox_url });
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
    for (const event of events) {
      const targets = await targetsFor(trx, event);
      if (targets.length === 0) continue;
      await Delivery.query(trx)
        .insert(
          targets.map((target) => ({
            id: newId('dlv'),
            tenant_id: event.tenant_id,
            event_id: event.id,
            target_kind: target.kind,
            target_id: target.id,
            url: target.url,
          })),
        )
        .onConflict(['target_kind', 'target_id', 'event_id'])
        .ignore();
    }
    if (events.length > 0)
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
