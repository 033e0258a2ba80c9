import type { Db } from '../../db/connect';
import type { Config } from '../../lib/config/config';
import { attemptDelivery, giveUp } from './delivery';
import { dispatchOutbox, type RelayDeps } from './relay';

/** What the delivery and relay workflows' activities work with. */
export type WebhookActivityDeps = RelayDeps & { db: Db; secret: Buffer; config: Config };

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const delivery = {
    db: deps.db,
    secret: deps.secret,
    allowedHosts: deps.config.webhooks.allowedHosts,
    timeoutMs: deps.config.durations.webhookTimeoutMs,
    caFile: deps.config.webhooks.caFile,
  };
  return {
    async attemptDelivery(deliveryId: string, attempt: number) {
      return attemptDelivery(delivery, deliveryId, attempt);
    },
    async giveUpDelivery(deliveryId: string): Promise<void> {
      await giveUp(deps.db, deliveryId);
    },
    async dispatchOutbox(batchSize: number): Promise<number> {
      return dispatchOutbox({ ...deps, delivery, concurrency: deps.config.webhooks.concurrency }, batchSize);
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
