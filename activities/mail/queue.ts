import type { Knex } from 'knex';
import type { MailMessage } from '../../db/models';
import type { Config } from '../../lib/config/config';
import type { Mailer, OutgoingMail } from '../../lib/mail';
import { startAfterCommit, starts } from '../workflow-starts';
import type { Workflows, WorkLane } from '../workflows';

export interface MailQueueDeps {
  mailer: Mailer;
  workflows: Workflows;
  config: Config;
}

/**
 * Queues a mail and starts its delivery workflow (joined when it runs already). Idempotent by the
 * mail's dedupe key, so a retried activity neither stores nor sends it twice. With `trx`, the mail
 * commits with the change that sends it, and its workflow starts after that commit (a durable start,
 * activities/workflow-starts.ts).
 */
export async function queueMail(deps: MailQueueDeps, mail: OutgoingMail, trx?: Knex.Transaction, lane?: WorkLane): Promise<MailMessage> {
  const message = await deps.mailer.queue(mail, trx);
  if (message.status !== 'queued') return message;
  if (trx) await startAfterCommit(deps, trx, starts.mail(message, lane));
  // Queued on its own, the mail committed already: Temporal unreachable answers 503, or an activity retries it.
  else await deps.workflows.startMail(message, lane);
  return message;
}
