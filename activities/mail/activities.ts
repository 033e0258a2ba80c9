import type { Db } from '../../db/connect';
import { AuditEvent, type MailMessage } from '../../db/models';
import type { Mailer } from '../../lib/mail';
import { recordObservation } from '../audit/audit';
import { failQueuedMail } from './send';

/**
 * A document's mail that went out (a sign link, a notice) goes on its audit trail as `mail.sent`,
 * once: a retried delivery finds the line already there.
 */
async function recordDelivered(db: Db, mail: MailMessage): Promise<void> {
  if (!mail.document_id || !mail.tenant_id || (mail.status !== 'sent' && mail.status !== 'stored')) return;
  const recorded = await AuditEvent.query(db)
    .where({ document_id: mail.document_id, action: 'mail.sent' })
    .whereRaw(`data->>'mail_id' = ?`, [mail.id])
    .first();
  if (recorded) return;
  await recordObservation(db, {
    tenantId: mail.tenant_id,
    documentId: mail.document_id,
    actor: { type: 'system' },
    action: 'mail.sent',
    data: {
      mail_id: mail.id,
      purpose: mail.purpose,
      to: mail.to_address,
      signer_id: mail.signer_id,
      delivery: mail.status === 'sent' ? 'smtp' : 'outbox',
    },
  });
}

/** The mail workflow's activities. */
export function createMailActivities(deps: { db: Db; mailer: Mailer }) {
  return {
    async deliverMail(mailId: string): Promise<void> {
      await recordDelivered(deps.db, await deps.mailer.deliver(mailId));
    },
    async recordMailFailure(mailId: string, reason: string): Promise<void> {
      await failQueuedMail(deps, mailId, reason);
    },
  };
}
export type MailActivities = ReturnType<typeof createMailActivities>;
