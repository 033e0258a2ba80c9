export const BULK_WORKFLOW = 'bulkSendWorkflow';

export function bulkWorkflowId(bulkId: string): string {
  return `bulk-${bulkId}`;
}

/**
 * The task queue of bulk work (bulk items, bulk-sent invitations), beside the service's own: its
 * worker has a few slots of its own (SVC_BULK_WORKER_SLOTS), so bulk work never takes the slots of
 * another tenant's single document, apply, mail or webhook.
 */
export function bulkTaskQueue(taskQueue: string): string {
  return `${taskQueue}-bulk`;
}

/** Durations and the concurrency bound are inputs, so tests run them short and small. */
export interface BulkWorkflowInput {
  bulkId: string;
  /** Items 0 … total-1. */
  total: number;
  /** Items being made at once (SVC_BULK_CONCURRENCY). */
  concurrency: number;
  activityTimeoutMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  activityAttempts: number;
  /** Where items are made (bulkTaskQueue); absent in bulks started before it existed: the workflow's own queue. */
  itemQueue?: string;
}
