import { WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { newId } from '../../lib/ids';
import type { TemporalDeps } from '../../lib/temporal';
import type { webhookDeliveryWorkflow } from '../../workflows/webhook/delivery';
import { DELIVERY_WORKFLOW, deliveryWorkflowId } from '../../workflows/webhook/shared';
import { isContactEvent } from '../events/outbox';

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
 * a batch run twice adds nothing), then starts a workflow for each delivery not yet started.
 */
export async function dispatchOutbox(deps: RelayDeps, batchSize: number): Promise<number> {
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
  await startDeliveries(deps, batchSize * 5);
  return dispatched;
}

/** A delivery whose workflow start was lost (a crash after the commit) is started on the next round. */
async function startDeliveries(deps: RelayDeps, limit: number): Promise<void> {
  const { durations } = deps.config;
  const unstarted = await Delivery.query(deps.db).whereNull('workflow_started_at').orderBy('created_at').limit(limit);
  for (let i = 0; i < unstarted.length; i += 50) {
    const chunk = unstarted.slice(i, i + 50);
    await Promise.all(
      chunk.map((delivery) =>
        deps.temporal.client.workflow.start<typeof webhookDeliveryWorkflow>(DELIVERY_WORKFLOW, {
          workflowId: deliveryWorkflowId(delivery.id),
          taskQueue: deps.temporal.taskQueue,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          args: [
            {
              deliveryId: delivery.id,
              retryInitialMs: durations.webhookRetryInitialMs,
              retryMaxMs: durations.webhookRetryMaxMs,
              giveUpMs: durations.webhookGiveUpMs,
              attemptTimeoutMs: durations.webhookTimeoutMs,
            },
          ],
        }),
      ),
    );
    await Delivery.query(deps.db)
      .whereIn(
        'id',
        chunk.map((d) => d.id),
      )
      .patch({ workflow_started_at: new Date() });
  }
}
