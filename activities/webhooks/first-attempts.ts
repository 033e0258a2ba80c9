import https from 'node:https';
import { Contact, Delivery, Event, Webhook } from '../../db/models';
import {
  type AttemptRecord,
  checkedTarget,
  type DeliveryContext,
  type DeliveryDeps,
  dropDelivery,
  goneReason,
  outcomeOf,
  recordAttempts,
  send,
  signedRequest,
} from './delivery';
import type { RelayDeps } from './relay';
import type { Target } from './targets';

export type FirstAttemptDeps = RelayDeps & { delivery: DeliveryDeps; concurrency: number };

/**
 * The first attempt of every delivery not yet handed off, made here in one batch rather than by a
 * workflow per delivery: deliveries are grouped by endpoint, each endpoint gets one keep-alive agent
 * (its TLS session reused) and at most `concurrency` requests in flight, and each attempt is recorded
 * as the retry workflow records its own. A delivery that succeeds is done; one that fails gets a retry
 * workflow (DESIGN's backoff) that goes on from attempt 2. Once an endpoint fails to answer at all
 * (refused, timed out, not a public address), or the batch has used `budgetMs`, the rest of that
 * endpoint's deliveries are handed to retry workflows without an attempt here, so one dead receiver
 * cannot hold up the others or the relay.
 *
 * At least once: a crash after a POST and before its record (records are written in bulk, 64 at a
 * time and at the end of the batch) makes that attempt again, as a retried activity would; an attempt
 * already recorded is never made twice by the relay, it is handed off instead.
 */
export async function firstAttempts(deps: FirstAttemptDeps, limit: number, budgetMs: number): Promise<number> {
  const deliveries = await Delivery.query(deps.db).whereNull('workflow_started_at').orderBy('created_at').orderBy('id').limit(limit);
  if (deliveries.length === 0) return 0;
  const contexts = await contextsOf(deps, deliveries);
  const deadline = Date.now() + budgetMs;
  const byEndpoint = new Map<string, DeliveryContext[]>();
  for (const context of contexts) {
    const group = byEndpoint.get(context.delivery.url) ?? [];
    group.push(context);
    byEndpoint.set(context.delivery.url, group);
  }
  await Promise.all([...byEndpoint].map(([url, group]) => endpointBatch(deps, url, group, deadline)));
  return deliveries.length;
}

/** The events, webhooks and inbox contacts of a batch of deliveries, in three queries. */
async function contextsOf(deps: FirstAttemptDeps, deliveries: Delivery[]): Promise<DeliveryContext[]> {
  const ids = (kind: 'webhook' | 'inbox') => [...new Set(deliveries.filter((d) => d.target_kind === kind).map((d) => d.target_id))];
  const [events, webhooks, inboxes] = await Promise.all([
    Event.query(deps.db).whereIn('id', [...new Set(deliveries.map((d) => d.event_id))]),
    Webhook.query(deps.db).whereIn('id', ids('webhook')),
    Contact.query(deps.db).whereIn('id', ids('inbox')),
  ]);
  const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
  const [event, webhook, inbox] = [byId(events), byId(webhooks), byId(inboxes)];
  return deliveries.map((delivery) => ({
    delivery,
    event: event.get(delivery.event_id)!,
    webhook: delivery.target_kind === 'webhook' ? webhook.get(delivery.target_id) : undefined,
    inbox: delivery.target_kind === 'inbox' ? inbox.get(delivery.target_id) : undefined,
  }));
}

/** An endpoint's keep-alive agent is closed after this long without a batch for it. */
const AGENT_IDLE_MS = 30_000;
const agents = new Map<string, { agent: https.Agent; usedAt: number }>();

/**
 * The keep-alive agent of an endpoint at the address it was checked at, kept from batch to batch so
 * its connections and TLS sessions carry over; a new address gets a new agent, and agents idle for
 * AGENT_IDLE_MS are closed.
 */
function agentFor(target: Target, concurrency: number): https.Agent {
  const now = Date.now();
  for (const [key, entry] of agents) {
    if (now - entry.usedAt > AGENT_IDLE_MS) {
      entry.agent.destroy();
      agents.delete(key);
    }
  }
  const key = `${target.url.origin} ${target.address} ${concurrency}`;
  const entry = agents.get(key) ?? {
    agent: new https.Agent({ keepAlive: true, maxSockets: concurrency, timeout: AGENT_IDLE_MS }),
    usedAt: now,
  };
  entry.usedAt = now;
  agents.set(key, entry);
  return entry.agent;
}

/** Attempt records written 64 to a statement while the posts go on; `flush()` writes the rest. */
function recorder(db: FirstAttemptDeps['db']) {
  let queue: AttemptRecord[] = [];
  let writing: Promise<void> = Promise.resolve();
  let failure: unknown;
  const write = () => {
    const batch = queue;
    queue = [];
    writing = writing
      .then(() => recordAttempts(db, batch))
      .catch((error) => {
        failure ??= error;
      });
  };
  return {
    add(record: AttemptRecord) {
      queue.push(record);
      if (queue.length >= 64) write();
    },
    async flush() {
      write();
      await writing;
      if (failure) throw failure;
    },
  };
}

/**
 * One endpoint's share of the batch: its URL checked once, then `concurrency` lanes posting over one
 * keep-alive agent; attempts are recorded in bulk, and once all are recorded the failed ones, and
 * those left untried, are handed to retry workflows.
 */
async function endpointBatch(deps: FirstAttemptDeps, url: string, group: DeliveryContext[], deadline: number): Promise<void> {
  const records = recorder(deps.db);
  const handOffs: Array<{ delivery: Delivery; attemptsMade: number }> = [];
  // A refused target is recorded as the first delivery's attempt, exactly as a retry workflow records it.
  const checked = await checkedTarget(url, deps.delivery.allowedHosts);
  const target = 'target' in checked ? checked.target : undefined;
  const refusal = 'refused' in checked ? checked.refused : undefined;
  let unreachable = false;
  const agent = target ? agentFor(target, deps.concurrency) : undefined;
  let next = 0;
  const lane = async () => {
    while (next < group.length) {
      const context = group[next++];
      const { delivery } = context;
      if (!(await stillNew(deps, context, handOffs))) continue;
      if (unreachable || Date.now() > deadline) {
        handOffs.push({ delivery, attemptsMade: 0 });
        continue;
      }
      const startedAt = new Date();
      const result = refusal ?? (await send(deps.delivery, target!, signedRequest(context, deps.delivery.secret), agent));
      records.add({ deliveryId: delivery.id, attempt: 1, startedAt, result });
      if (!outcomeOf(result).delivered) handOffs.push({ delivery, attemptsMade: 1 });
      // No answer at all (refused, reset, timed out): the rest wait for their retry workflows' backoff.
      if (result.statusCode === undefined) unreachable = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency, group.length) }, lane));
  await records.flush();
  for (let i = 0; i < handOffs.length; i += 50)
    await Promise.all(handOffs.slice(i, i + 50).map(({ delivery, attemptsMade }) => handOff(deps, delivery, attemptsMade)));
}

/**
 * Whether a delivery still wants its first attempt. One already done is marked handed off, one whose
 * target is gone is dropped, and one a crashed run already attempted is handed off as it stands.
 */
async function stillNew(
  deps: FirstAttemptDeps,
  context: DeliveryContext,
  handOffs: Array<{ delivery: Delivery; attemptsMade: number }>,
): Promise<boolean> {
  const { delivery } = context;
  if (delivery.status !== 'pending') {
    await Delivery.query(deps.db).findById(delivery.id).whereNull('workflow_started_at').patch({ workflow_started_at: new Date() });
    return false;
  }
  const gone = goneReason(context);
  if (gone) {
    await dropDelivery(deps.db, delivery.id, gone);
    return false;
  }
  if (delivery.attempts > 0) {
    handOffs.push({ delivery, attemptsMade: delivery.attempts });
    return false;
  }
  return true;
}

/** Starts the delivery's retry workflow (joining one a crashed run started) and marks it handed off. */
async function handOff(deps: FirstAttemptDeps, delivery: Delivery, attemptsMade: number): Promise<void> {
  await deps.workflows.startDelivery(delivery, attemptsMade);
  await Delivery.query(deps.db).findById(delivery.id).whereNull('workflow_started_at').patch({ workflow_started_at: new Date() });
}
