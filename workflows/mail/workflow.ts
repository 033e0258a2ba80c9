import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { MailActivities } from '../../activities/mail/activities';
import { OperatorView } from '../operator-view';
import type { MailWorkflowInput } from './shared';

/**
 * Delivers one queued mail, off the path of whatever queued it: retried with backoff within its
 * budget, at once given up when the relay refuses it for good; a mail that cannot be delivered is
 * recorded as failed (and shown to the sender), never left to block a document.
 */
export async function mailWorkflow(input: MailWorkflowInput): Promise<{ status: 'sent' | 'failed' }> {
  const retry = { initialInterval: input.retryInitialMs, maximumInterval: input.retryMaxMs, backoffCoefficient: 2 };
  const mail = proxyActivities<MailActivities>({
    startToCloseTimeout: input.activityTimeoutMs,
    retry: { ...retry, maximumAttempts: input.attempts, nonRetryableErrorTypes: ['MailRefused'] },
    ...(input.deliverQueue ? { taskQueue: input.deliverQueue } : {}),
  });
  const record = proxyActivities<MailActivities>({
    startToCloseTimeout: input.activityTimeoutMs,
    retry: { ...retry, maximumAttempts: 10 },
  });
  const id = input.mailId;
  const view = new OperatorView('queued', 'the mail relay to take it');
  try {
    await mail.deliverMail.executeWithOptions({ summary: `hand ${id} to the mail relay (SMTP)` }, [id]);
    view.set('sent', 'nothing: delivered to the relay');
    return { status: 'sent' };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await record.recordMailFailure.executeWithOptions({ summary: `record that ${id} failed` }, [
      id,
      error.cause?.message ?? 'the mail could not be delivered',
    ]);
    view.set('failed', 'nothing: the mail failed and is on the record');
    return { status: 'failed' };
  }
}
