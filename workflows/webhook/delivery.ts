import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks/activities';
import type { DeliveryWorkflowInput } from './shared';

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
  let wait = input.retryInitialMs;
  const first = (input.attemptsMade ?? 0) + 1;
  if (first > 1) {
    await sleep(wait);
    wait = Math.min(wait * 2, input.retryMaxMs);
  }
  for (let attempt = first; ; attempt += 1) {
    const result = await attemptDelivery(input.deliveryId, attempt);
    if (result.done) return { delivered: result.delivered, attempts: attempt };
    if (Date.now() - started + wait > input.giveUpMs) {
      await giveUpDelivery(input.deliveryId);
      return { delivered: false, attempts: attempt };
    }
    await sleep(wait);
    wait = Math.min(wait * 2, input.retryMaxMs);
  }
}
