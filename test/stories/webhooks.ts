// Stories of webhook deliveries: the retries of those the relay could not make, and the relay itself.
import { writeEvent } from '../../activities/events/outbox';
import { Delivery } from '../../db/models';
import { startWorker } from '../../worker/worker';
import { deliveryWorkflowId, relayWorkflowId } from '../../workflows/webhook/shared';
import { type Account, createAccount } from '../factories';
import { call } from '../http';
import { Receiver } from '../receiver';
import { historyToJson } from '../replay';
import { startStack } from '../stack';
import { waitFor } from '../wait';
import { type Context, DURATIONS, type Story, workflowResult } from './context';

async function webhookFor(context: Context, account: Account, respond: () => number) {
  const receiver = await new Receiver(context.tls).start();
  context.receivers.push(receiver);
  receiver.respond = respond;
  const created = await call(context.stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: receiver.url } });
  if (created.status !== 201) throw new Error(`webhook: ${created.status} ${created.text}`);
}

/** The retry workflow of the one delivery of a just-emitted event (its first attempt failed), once it ended. */
async function deliveryOf(context: Context, account: Account, payload: Record<string, unknown>): Promise<string> {
  const { stack } = context;
  const event = await stack.deps.db.transaction((trx) => writeEvent(trx, account.tenantId, 'document.signed', payload));
  const delivery = await waitFor('the delivery', async () => Delivery.query(stack.deps.db).where({ event_id: event.id }).first(), 10_000);
  const workflowId = deliveryWorkflowId(delivery.id);
  await waitFor(
    'the delivery workflow to start',
    async () => (await Delivery.query(stack.deps.db).findById(delivery.id))?.workflow_started_at,
  );
  await workflowResult(stack, workflowId);
  return workflowId;
}

export const WEBHOOK_STORIES: Story[] = [
  {
    // The relay makes the first attempt; these workflows are the retries of deliveries it could not make.
    histories: ['webhook-delivery/retried-then-delivered', 'webhook-delivery/retried-then-gave-up'],
    async run(context) {
      const { stack } = context;
      const flaky = await createAccount(stack.deps.db);
      let calls = 0;
      await webhookFor(context, flaky, () => (++calls <= 2 ? 500 : 200));
      const delivered = await deliveryOf(context, flaky, { replay: 'failed then delivered' });
      const down = await createAccount(stack.deps.db);
      await webhookFor(context, down, () => 503);
      const gaveUp = await deliveryOf(context, down, { replay: 'gave up' });
      return { 'webhook-delivery/retried-then-delivered': delivered, 'webhook-delivery/retried-then-gave-up': gaveUp };
    },
  },
];

/**
 * The relay never ends (it continues as new every 500 rounds): its history is taken from a stack of
 * its own while it runs, covering a full batch (no rest), a partial one and an idle round (rests).
 */
export const RELAY = 'outbox-relay/full-batch-then-idle';
export async function recordRelay(): Promise<string> {
  // The relay's activity rests up to 20 polls at an idle outbox before it hands back to the workflow's
  // timer: a short poll keeps the two idle rounds this story waits for within seconds.
  const stack = await startStack({ worker: false, env: { ...DURATIONS, SVC_OUTBOX_POLL_MS: '100' } });
  try {
    const account = await createAccount(stack.deps.db);
    await stack.deps.db.transaction(async (trx) => {
      for (let i = 0; i < 150; i += 1) await writeEvent(trx, account.tenantId, 'document.signed', { replay: i });
    });
    const worker = await startWorker(stack.deps);
    const handle = stack.deps.temporal.client.workflow.getHandle(relayWorkflowId(stack.deps.temporal.taskQueue));
    try {
      await waitFor(
        'two idle rounds of the relay',
        async () => {
          const events = (await handle.fetchHistory()).events ?? [];
          return events.filter((event) => event.timerFiredEventAttributes).length >= 2;
        },
        60_000,
      );
    } finally {
      await worker.stop();
    }
    const history = await handle.fetchHistory();
    await handle.terminate('recorded');
    return historyToJson(history);
  } finally {
    await stack.close();
  }
}
