import { defineSignal } from '@temporalio/workflow';

export const SIGN_REQUEST_WORKFLOW = 'signRequestWorkflow';

export function signRequestWorkflowId(signRequestId: string): string {
  return `sign-request-${signRequestId}`;
}

/** Durations are inputs (the lifetime is 24 hours in production, seconds in tests). */
export interface SignRequestWorkflowInput {
  signRequestId: string;
  lifetimeMs: number;
  activityTimeoutMs: number;
  heartbeatMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
}

/** The principal confirmed in the app (their session was checked there). */
export const confirmSignal = defineSignal<[{ ip?: string }]>('confirm');
/** The principal declined in the app. */
export const declineSignal = defineSignal<[{ ip?: string }]>('decline');
