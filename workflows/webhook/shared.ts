import { defineSignal } from '@temporalio/workflow';

export const DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

/**
 * An operator's "retry now" (docs/operations.md): the delivery skips the rest of its back-off wait
 * and makes its next attempt at once (`temporal workflow signal --name retry-now`).
 */
export const retryNowSignal = defineSignal<[]>('retry-now');
export const RELAY_WORKFLOW = 'outboxRelayWorkflow';

export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery-${deliveryId}`;
}

/** One relay per task queue; a second start joins the running one. */
export function relayWorkflowId(taskQueue: string): string {
  return `outbox-relay-${taskQueue}`;
}

/** DESIGN: first retry after 10 s, doubling, at most 1 h apart, for up to 24 h; all inputs. */
export interface DeliveryWorkflowInput {
  deliveryId: string;
  retryInitialMs: number;
  retryMaxMs: number;
  giveUpMs: number;
  attemptTimeoutMs: number;
  /**
   * Attempts already made before the workflow (the relay's first attempt): the workflow waits
   * `retryInitialMs` and goes on from the next one. Absent (executions before it existed): none.
   */
  attemptsMade?: number;
}

export interface RelayWorkflowInput {
  pollMs: number;
  batchSize: number;
  activityTimeoutMs: number;
  /** The relay activity's heartbeat timeout; absent in relays started before it existed (then 30 s). */
  heartbeatMs?: number;
}
