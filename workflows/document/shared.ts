import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApplyOutcome } from '../../activities/apply/apply-outcome';
import type { WorkStatus } from '../operator-view';

export const DOCUMENT_WORKFLOW = 'documentWorkflow';

export function documentWorkflowId(documentId: string): string {
  return `document-${documentId}`;
}

/** Durations are inputs, so tests run them short. */
export interface DocumentWorkflowInput {
  documentId: string;
  activityTimeoutMs: number;
  heartbeatMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  /** Attempts of one apply before it ends rejected (sign_failed). */
  applyAttempts: number;
  /** Attempts of every other activity. */
  activityAttempts: number;
  /** `bulk`: a bulk send made it; its invitations are delivered on the bulk lane. Absent: the service's own. */
  lane?: 'bulk';
  /** The document's expiry and reminder schedule (absent: it waits for neither; runs before patch `document-waits` had none). */
  waits?: {
    /** When the document expires unsigned (epoch ms). */
    expiresAtMs?: number;
    /** Pending signers (under strict order, the one whose turn it is) are mailed after firstAfterMs, then every everyMs, max times. */
    reminders?: { firstAfterMs: number; everyMs: number; max: number };
  };
}

/**
 * An apply was recorded (status pending): stamp and seal it. Signals are durable; a worker need not be
 * up. `waiter` is a workflow waiting on this apply (an offer accepting by L2, an L1 sign request): it
 * gets the `wake` signal when the apply settles.
 */
export const applySignal = defineSignal<[{ applyId: string; waiter?: string }]>('apply');
/** The document left `sent` outside the workflow (declined, voided): stop waiting. Older senders gave no status. */
export const settledSignal = defineSignal<[{ status?: string }?]>('settled');
/** The document workflow's `status`: what every long-lived workflow answers (WorkStatus), and its applies. */
export const statusQuery = defineQuery<WorkStatus & { status: string; processed: string[]; queued: string[] }>('status');

/** What an apply came to, as the workflow saw it (the API reads the full outcome from the database). */
export interface ApplySettled {
  applyId: string;
  /** 'applied' or 'rejected'; null when the apply was unknown to the activity (nothing to do). */
  status: string | null;
  /** The outcome the apply's activity returned (absent from runs before the patch `apply-local`, and when it was unknown). */
  outcome?: ApplyOutcome;
}
/**
 * Hands an apply over and answers when it settled, so the request that recorded it returns the moment
 * it commits, without polling the database. The API sends it with the workflow's start
 * (update-with-start), so one call carries the apply; it also joins an apply already handed over by
 * the durable `apply` signal.
 */
export const applySettledUpdate = defineUpdate<ApplySettled, [{ applyId: string }]>('applySettled');
