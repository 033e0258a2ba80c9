import { WorkflowIdConflictPolicy } from '@temporalio/client';
import type { MailMessage } from '../../db/models';
import type { Config } from '../../lib/config/config';
import type { Mailer, OutgoingMail } from '../../lib/mail';
import type { TemporalDeps } from '../../lib/temporal';
import { MAIL_WORKFLOW, type MailWorkflowInput, mailWorkflowId } from '../../workflows/mail/shared';
import type { mailWorkflow } from '../../workflows/mail/workflow';

export interface MailQueueDeps {
  mailer: Mailer;
  temporal: TemporalDeps;
  config: Config;
}

/**
 * Queues a mail and starts its delivery workflow (joined when it runs already). Idempotent by the
 * mail's dedupe key, so a retried activity neither stores nor sends it twice.
 */
export async function queueMail(deps: MailQueueDeps, mail: OutgoingMail): Promise<MailMessage> {
  const message = await deps.mailer.queue(mail);
  if (message.status !== 'queued') return message;
  const { durations } = deps.config;
  await deps.temporal.client.workflow.start<typeof mailWorkflow>(MAIL_WORKFLOW, {
    workflowId: mailWorkflowId(message.id),
    taskQueue: deps.temporal.taskQueue,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [
      {
        mailId: message.id,
        attempts: durations.mailAttempts,
        retryInitialMs: durations.retryInitialMs,
        retryMaxMs: durations.retryMaxMs,
        activityTimeoutMs: durations.activityTimeoutMs,
      } satisfies MailWorkflowInput,
    ],
  });
  return message;
}
