import type { Knex } from 'knex';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import { newId } from '../../lib/ids';
import { isContactEvent } from '../events/outbox';
import { sweepStarts } from '../workflow-starts';
import type { DeliveryContext } from './delivery';
import { type FirstAttemptDeps, FirstAttempts, type Round } from './first-attempts';
import { OutboxWakeUp } from './wake-up';

export type { RelayDeps } from './relay-deps';

export interface DeliveryTarget {
  kind: 'webhook' | 'inbox';
  id: string;
  url: string;
}

/**
 * Every endpoint each event goes to: its tenant's webhooks that subscribe to it (and existed when it
 * happened), and for a contact or offer event the inbox_url of that side of the contact. Two queries
 * for the whole batch, whatever its size; the rows read come back too, for the first attempts.
 */
async function targetsFor(
  trx: Knex.Transaction,
  events: Event[],
): Promise<{ targets: Map<string, DeliveryTarget[]>; webhooks: Webhook[]; contacts: Contact[] }> {
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
  return { targets, webhooks, contacts };
}

/** What a batch moved: its events, the deliveries it added and the rows they go to. */
interface Moved {
  events: Event[];
  deliveries: Delivery[];
  webhooks: Webhook[];
  contacts: Contact[];
}

/** Moves a batch of new events from the outbox to deliveries (one per event and endpoint, unique, so a batch run twice adds nothing). */
async function moveBatch(deps: FirstAttemptDeps, batchSize: number): Promise<Moved> {
  return deps.db.transaction(async (trx) => {
    const events = await Event.query(trx)
      .whereNull('dispatched_at')
      .orderBy('created_at')
      .orderBy('id')
      .limit(batchSize)
      .forUpdate()
      .skipLocked();
    if (events.length === 0) return { events, deliveries: [], webhooks: [], contacts: [] };
    const { targets, webhooks, contacts } = await targetsFor(trx, events);
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
    const deliveries: Delivery[] = [];
    for (let i = 0; i < rows.length; i += 500)
      deliveries.push(
        // Only the rows added come back: a delivery that already existed is not this batch's to attempt.
        ...(await Delivery.query(trx)
          .insert(rows.slice(i, i + 500))
          .onConflict(['target_kind', 'target_id', 'event_id'])
          .ignore()
          .returning('*')),
      );
    await Event.query(trx)
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .patch({ dispatched_at: new Date() });
    return { events, deliveries, webhooks, contacts };
  });
}

/** The events, webhooks and inbox contacts of a batch of deliveries: those a batch just read, the rest in at most three queries. */
async function contextsOf(deps: FirstAttemptDeps, deliveries: Delivery[], known: Omit<Moved, 'deliveries'>): Promise<DeliveryContext[]> {
  const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
  const [event, webhook, inbox] = [byId(known.events), byId(known.webhooks), byId(known.contacts)];
  const missing = <T>(ids: string[], rows: Map<string, T>) => [...new Set(ids.filter((id) => !rows.has(id)))];
  const targetIds = (kind: 'webhook' | 'inbox') => deliveries.filter((d) => d.target_kind === kind).map((d) => d.target_id);
  const [eventIds, webhookIds, inboxIds] = [
    missing(
      deliveries.map((d) => d.event_id),
      event,
    ),
    missing(targetIds('webhook'), webhook),
    missing(targetIds('inbox'), inbox),
  ];
  const [events, webhooks, inboxes] = await Promise.all([
    eventIds.length > 0 ? Event.query(deps.db).whereIn('id', eventIds) : [],
    webhookIds.length > 0 ? Webhook.query(deps.db).whereIn('id', webhookIds) : [],
    inboxIds.length > 0 ? Contact.query(deps.db).whereIn('id', inboxIds) : [],
  ]);
  for (const row of events) event.set(row.id, row);
  for (const row of webhooks) webhook.set(row.id, row);
  for (const row of inboxes) inbox.set(row.id, row);
  return deliveries.map((delivery) => ({
    delivery,
    event: event.get(delivery.event_id)!,
    webhook: delivery.target_kind === 'webhook' ? webhook.get(delivery.target_id) : undefined,
    inbox: delivery.target_kind === 'inbox' ? inbox.get(delivery.target_id) : undefined,
  }));
}

/** How often the relay sweeps the workflow starts that were recorded but not made (activities/workflow-starts.ts). */
const SWEEP_EVERY_MS = 1000;
/** Starts made by one sweep at most. */
const SWEEP_BATCH = 100;

/** Whole polls without a commit the activity rests before it hands back to the workflow (which then rests and starts another). */
export const IDLE_LOOKS = 20;

/** Sweeps the recorded workflow starts now and every SWEEP_EVERY_MS, one sweep at a time, until stopped. */
class Sweeper {
  private running: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly deps: FirstAttemptDeps) {
    this.sweep();
    this.timer = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
  }

  private sweep(): void {
    // A failure (the database, for a moment) waits for the next sweep.
    this.running ??= sweepStarts(this.deps, SWEEP_BATCH)
      .then(
        () => undefined,
        (error) => this.deps.log?.warn('workflow start sweep failed', { error: (error as Error)?.message ?? String(error) }),
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

/**
 * Moves batches of new events from the outbox to deliveries and makes their first attempts: a full
 * batch is followed by the next at once, and the next is moved (and the last one's records written)
 * while this one posts, two batches in flight at most. An idle outbox is looked at again as soon as
 * events commit (wake-up.ts: PostgreSQL's notice), at the latest after `SVC_OUTBOX_POLL_MS`, within
 * the activity, until IDLE_LOOKS rests have passed without a commit: a burst of events waits for its
 * notice, not for a poll, a workflow timer, task and activity dispatch. Batches are taken for a
 * quarter of the activity's time at most, first attempts made for half of it. The first batch also
 * takes every delivery a crashed run left without a first attempt. Only failures start retry
 * workflows. Meanwhile, once a second, it sweeps the workflow starts whose request could not make
 * them (Temporal unreachable then, or the process ended first): the relay is what already runs all the
 * time in every worker, and the sweep rides on it without changing its workflow's history.
 * Answers the number of events moved.
 */
export async function dispatchOutbox(deps: FirstAttemptDeps, batchSize: number, signal?: AbortSignal): Promise<number> {
  const startedAt = Date.now();
  const { activityTimeoutMs, outboxPollMs } = deps.config.durations;
  const takeUntil = startedAt + activityTimeoutMs / 4;
  let idleLooks = 0;
  // Half the activity's time for first attempts; what is left over goes to retry workflows untried.
  const attempts = new FirstAttempts(deps, startedAt + activityTimeoutMs / 2);
  let moved = 0;
  let previous: Round | undefined;
  const watch = (deps.wakeUp ?? new OutboxWakeUp(undefined)).watch();
  // On a timer of its own: an idle relay rests until a commit's notice or its poll, and a start waits for neither.
  const sweeper = new Sweeper(deps);
  try {
    for (let look = 0; ; look += 1) {
      watch.looking();
      const [began, beganAt] = [performance.now(), Date.now()];
      const batch = await moveBatch(deps, batchSize);
      const { events } = batch;
      const movedAt = performance.now();
      moved += events.length;
      // The first look also takes every delivery a crashed run left without a first attempt.
      const deliveries =
        look === 0
          ? await Delivery.query(deps.db)
              .whereNull('workflow_started_at')
              .orderBy('created_at')
              .orderBy('id')
              .limit(batchSize * 5)
          : batch.deliveries;
      let current: Round | undefined;
      if (deliveries.length > 0) {
        current = await attempts.take(await contextsOf(deps, deliveries, batch));
        const times = { startedAt: beganAt, moveMs: movedAt - began, readMs: performance.now() - movedAt };
        current.done.then(
          (round) => deps.log?.debug('outbox relay round', { ...times, ...round }),
          () => undefined,
        );
      }
      if (signal?.aborted || idleLooks >= IDLE_LOOKS || Date.now() >= takeUntil) break;
      if (events.length < batchSize) {
        if ((await watch.rest(outboxPollMs, signal)) === 'poll') idleLooks += 1;
      } else await previous?.posted;
      previous = current ?? previous;
    }
  } finally {
    watch.close();
    await sweeper.stop();
  }
  await attempts.finish();
  return moved;
}
