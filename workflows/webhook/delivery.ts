import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks/activities';
import { inWords, OperatorView } from '../operator-view';
import { type DeliveryWorkflowInput, retryNowSignal } from './shared';

/**
 * The retries of one event to one endpoint (the relay made the first attempt): attempts until a 2xx,
 * waiting between attempts with exponential backoff, and gives up once the next wait would pass the
 * give-up age. Each attempt is recorded by the activity.
 */
export async function webhookDeliveryWorkflow(input: DeliveryWorkflowInput): Promise<{ delivered: boolean; attempts: number }> {
  const { attemptDelivery, giveUpDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.attemptTimeoutMs + 30_000,
    retry: { initialInterval: 1000, maximumInterval: 30_000, backoffCoefficient: 2 },
  });
  const started = Date.now();
  const id = input.deliveryId;
  const view = new OperatorView('pending', 'the next attempt', started + input.giveUpMs).answerStatusQuery();
  let wait = input.retryInitialMs;
  const first = (input.attemptsMade ?? 0) + 1;
  let retryNow = false;
  setHandler(retryNowSignal, () => {
    retryNow = true;
  });
  const pause = async (attempt: number) => {
    view.set('pending', `attempt ${attempt} after ${inWords(wait)} (the endpoint did not take attempt ${attempt - 1})`);
    // A timer, as a sleep is; an operator's retry-now ends it early.
    await condition(() => retryNow, wait, { summary: `back off ${inWords(wait)} before attempt ${attempt} of ${id}` });
    retryNow = false;
    wait = Math.min(wait * 2, input.retryMaxMs);
  };
  if (first > 1) await pause(first);
  for (let attempt = first; ; attempt += 1) {
    view.set('pending', `attempt ${attempt} to be answered by the endpoint`);
    const result = await attemptDelivery.executeWithOptions({ summary: `POST attempt ${attempt} of ${id}` }, [id, attempt]);
    if (result.done) {
      view.set(result.delivered ? 'delivered' : 'failed', 'nothing: the delivery is final', null);
      return { delivered: result.delivered, attempts: attempt };
    }
    if (Date.now() - started + wait > input.giveUpMs) {
      await giveUpDelivery.executeWithOptions({ summary: `give up ${id}` }, [id]);
      view.set('failed', 'nothing: given up', null);
      return { delivered: false, attempts: attempt };
    }
    await pause(attempt + 1);
  }
}
