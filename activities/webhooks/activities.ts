import { Context } from '@temporalio/activity';
import type { Db } from '../../db/connect';
import type { Notices } from '../../db/notices';
import type { Config } from '../../lib/config/config';
import type { Logger } from '../../lib/log';
import { attemptDelivery, giveUp, secureContextFor } from './delivery';
import { dispatchOutbox, type RelayDeps } from './relay';
import { OutboxWakeUp } from './wake-up';

/**
 * Heartbeats every third of the activity's heartbeat timeout while `work` runs: a worker killed in the
 * middle then hands the activity on within that timeout instead of its start-to-close.
 */
async function heartbeating<T>(doing: string, work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const every = (context.info.heartbeatTimeoutMs ?? 0) / 3;
  const timer = every > 0 ? setInterval(() => context.heartbeat({ doing }), every) : undefined;
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** What the delivery and relay workflows' activities work with. */
export type WebhookActivityDeps = RelayDeps & { db: Db; secret: Buffer; config: Config; log: Logger; notices?: Notices };

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const delivery = {
    db: deps.db,
    secret: deps.secret,
    allowedHosts: deps.config.webhooks.allowedHosts,
    timeoutMs: deps.config.durations.webhookTimeoutMs,
    caFile: deps.config.webhooks.caFile,
  };
  // Built now (every public root parsed, some 20 ms) rather than in the middle of the first batch's posts.
  secureContextFor(delivery.caFile);
  const wakeUp = new OutboxWakeUp(deps.notices);
  return {
    async attemptDelivery(deliveryId: string, attempt: number) {
      return attemptDelivery(delivery, deliveryId, attempt);
    },
    async giveUpDelivery(deliveryId: string): Promise<void> {
      await giveUp(deps.db, deliveryId);
    },
    async dispatchOutbox(batchSize: number): Promise<number> {
      return heartbeating(`moving events from the outbox (database) to their first delivery attempts, ${batchSize} at a time`, () =>
        dispatchOutbox(
          { ...deps, delivery, wakeUp, concurrency: deps.config.webhooks.concurrency },
          batchSize,
          Context.current().cancellationSignal,
        ),
      );
    },
  };
}
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
