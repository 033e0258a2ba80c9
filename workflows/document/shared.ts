import { defineQuery, defineSignal } from '@temporalio/workflow';

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
}

/** An apply was recorded (status pending): stamp and seal it. Signals are durable; a worker need not be up. */
export const applySignal = defineSignal<[{ applyId: string }]>('apply');
/** The document left `sent` outside the workflow (declined, voided): stop waiting. */
export const settledSignal = defineSignal<[]>('settled');
export const statusQuery = defineQuery<{ status: string; processed: string[]; queued: string[] }>('status');
