import { WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Knex } from 'knex';
import type { MailMessage } from '../../db/models';
import type { Config } from '../../lib/config/config';
import type { Mailer, OutgoingMail } from '../../lib/mail';
import { type TemporalDeps, temporalCall } from '../../lib/temporal';
import { MAIL_WORKFLOW, type MailWorkflowInput, mailWorkflowId } from '../../workflows/mail/shared';
import type { mailWorkflow } from '../../workflows/mail/workflow';

export interface MailQueueDeps {
  mailer: Mailer;
  temporal: TemporalDeps;
  config: Config;
}

/**
 * Queues a mail and starts its delivery workflow (joined when it runs already). Idempotent by the
 * mail's dedupe key, so a retried activity neither stores nor sends it twice. With `trx`, the mail
 * commits with the change that sends it; the workflow started meanwhile retries until it does.
 */
export async function queueMail(deps: MailQueueDeps, mail: OutgoingMail, trx?: Knex.Transaction): Promise<MailMessage> {
  const message = await deps.mailer.queue(mail, trx);
  if (message.status !== 'queued') return message;
  const { durations } = deps.config;
  // Temporal unreachable answers 503 (a rule's caller rolls back; an activity retries it).
  await temporalCall(deps.temporal, deps.config, () =>
    deps.temporal.client.workflow.start<typeof mailWorkflow>(MAIL_WORKFLOW, {
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
    }),
  );
  return message;
}
