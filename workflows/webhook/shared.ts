export const DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
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
}

export interface RelayWorkflowInput {
  pollMs: number;
  batchSize: number;
  activityTimeoutMs: number;
}
