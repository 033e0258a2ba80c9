export const MAIL_WORKFLOW = 'mailWorkflow';

export function mailWorkflowId(mailId: string): string {
  return `mail-${mailId}`;
}

/** A bounded retry budget, as inputs (short in tests). */
export interface MailWorkflowInput {
  mailId: string;
  attempts: number;
  retryInitialMs: number;
  retryMaxMs: number;
  activityTimeoutMs: number;
  /** The task queue its delivery runs on (the bulk lane's for bulk-sent invitations); absent: the workflow's own. */
  deliverQueue?: string;
}
