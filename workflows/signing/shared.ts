import { defineSignal, defineUpdate } from '@temporalio/workflow';

export { wakeSignal } from '../wake';

export const SIGN_REQUEST_WORKFLOW = 'signRequestWorkflow';

export function signRequestWorkflowId(signRequestId: string): string {
  return `sign-request-${signRequestId}`;
}

/** Durations are inputs (the lifetime is 24 hours in production, seconds in tests). */
export interface SignRequestWorkflowInput {
  signRequestId: string;
  lifetimeMs: number;
  /**
   * The request's expires_at (epoch ms): the workflow expires it at that instant, the same deadline
   * the app and the API read. Executions started before it have none and wait lifetimeMs from their start.
   */
  expiresAtMs?: number;
  activityTimeoutMs: number;
  heartbeatMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  /** Attempts of each activity: every retry has a budget. */
  activityAttempts: number;
}

/**
 * The app recorded the principal's confirmation (status confirming): a wake-up only. The workflow
 * reads the decision from the database, so a signal sent by anyone else applies nothing.
 */
export const confirmSignal = defineSignal<[{ ip?: string }]>('confirm');
/** The app recorded the principal's decline: a wake-up only, like confirmSignal. */
export const declineSignal = defineSignal<[{ ip?: string }]>('decline');
/**
 * Answers the request's status once the workflow carried out the principal's decision (applied,
 * failed, declined, expired), so the app's confirm page shows the outcome the moment it is known,
 * without polling the database.
 */
export const signRequestSettledUpdate = defineUpdate<string, []>('settled');
