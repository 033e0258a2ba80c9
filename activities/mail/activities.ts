import type { Db } from '../../db/connect';
import type { Mailer } from '../../lib/mail';
import { failQueuedMail } from './send';

/** The mail workflow's activities. */
export function createMailActivities(deps: { db: Db; mailer: Mailer }) {
  return {
    async deliverMail(mailId: string): Promise<void> {
      await deps.mailer.deliver(mailId);
    },
    async recordMailFailure(mailId: string, reason: string): Promise<void> {
      await failQueuedMail(deps, mailId, reason);
    },
  };
}
export type MailActivities = ReturnType<typeof createMailActivities>;
