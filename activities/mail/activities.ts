import type { Mailer } from './mailer';

/** The mail workflow's activities. */
export function createMailActivities(deps: { mailer: Mailer }) {
  return {
    async deliverMail(mailId: string): Promise<void> {
      await deps.mailer.deliver(mailId);
    },
    async recordMailFailure(mailId: string, reason: string): Promise<void> {
      await deps.mailer.fail(mailId, reason);
    },
  };
}
export type MailActivities = ReturnType<typeof createMailActivities>;
