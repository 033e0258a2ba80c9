export const BULK_WORKFLOW = 'bulkSendWorkflow';

export function bulkWorkflowId(bulkId: string): string {
  return `bulk-${bulkId}`;
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
}
