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

export { wakeSignal } from '../wake';
