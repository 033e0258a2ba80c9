import { defineSignal } from '@temporalio/workflow';

export const TRANSFER_WORKFLOW = 'transferWorkflow';

export function transferWorkflowId(transferId: string): string {
  return `transfer-${transferId}`;
}

/** Durations are inputs, so tests run them short. */
export interface TransferWorkflowInput {
  transferId: string;
  /** How often an offered package is looked at again without a wake-up (a missed one costs at most this). */
  recheckMs: number;
  activityTimeoutMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  activityAttempts: number;
}

/**
 * Something that may unlock the package happened (the linked document completed or was declined, a
 * recipient accepted, the package was cancelled): a wake-up only; the workflow reads the database.
 */
export const wakeSignal = defineSignal<[]>('wake');
