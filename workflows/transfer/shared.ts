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
  /**
   * Looks before the wait starts afresh (continue-as-new), so a package waiting for months keeps a
   * short history; absent: TRANSFER_ROUNDS_PER_RUN.
   */
  roundsPerRun?: number;
}

/** A look an hour (the default recheck) for about three weeks per run: a few thousand events at most. */
export const TRANSFER_ROUNDS_PER_RUN = 500;

export { wakeSignal } from '../wake';
