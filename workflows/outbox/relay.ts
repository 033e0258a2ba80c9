import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks/activities';
import { OperatorView } from '../operator-view';
import type { RelayWorkflowInput } from '../webhook/shared';

/** Rounds before the relay starts afresh, keeping its history short. */
const ROUNDS = 500;
/** The heartbeat timeout of relays started without one in their input (the default SVC_ACTIVITY_HEARTBEAT_MS). */
const DEFAULT_HEARTBEAT_MS = 30_000;

/** Moves events from the outbox to delivery workflows: a batch at a time, resting `pollMs` when idle. */
export async function outboxRelayWorkflow(input: RelayWorkflowInput): Promise<void> {
  const { dispatchOutbox } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.activityTimeoutMs,
    // Every event leaves through this one activity: a killed worker must not hold it for the whole timeout.
    heartbeatTimeout: input.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    retry: { initialInterval: 1000, maximumInterval: 30_000, backoffCoefficient: 2 },
  });
  const view = new OperatorView('running', 'a batch of events to move').answerStatusQuery();
  for (let round = 0; round < ROUNDS; round += 1) {
    const moved = await dispatchOutbox.executeWithOptions({ summary: `move up to ${input.batchSize} events to delivery` }, [
      input.batchSize,
    ]);
    if (moved < input.batchSize) {
      view.set('running', 'new events in the outbox (resting between looks)');
      await sleep(input.pollMs, { summary: 'rest: the outbox had no full batch' });
    } else view.set('running', 'a batch of events to move');
  }
  await continueAsNew<typeof outboxRelayWorkflow>(input);
}
