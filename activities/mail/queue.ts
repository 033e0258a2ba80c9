import type { Knex } from 'knex';
import type { MailMessage } from '../../db/models';
import type { Config } from '../../lib/config/config';
import type { Mailer, OutgoingMail } from '../../lib/mail';
import type { Workflows, WorkLane } from '../workflows';

export interface MailQueueDeps {
  mailer: Mailer;
  workflows: Workflows;
  config: Config;
}

/**
 * Queues a mail and starts its delivery workflow (joined when it runs already). Idempotent by the
 * mail's dedupe key, so a retried activity neither stores nor sends it twice. With `trx`, the mail
 * commits with the change that sends it; the workflow started meanwhile retries until it does.
 */
export async function queueMail(deps: MailQueueDeps, mail: OutgoingMail, trx?: Knex.Transaction, lane?: WorkLane): Promise<MailMessage> {
  const message = await deps.mailer.queue(mail, trx);
  if (message.status !== 'queued') return message;
  // Temporal unreachable answers 503 (a rule's caller rolls back; an activity retries it).
  await deps.workflows.startMail(message, lane);
  return message;
}
