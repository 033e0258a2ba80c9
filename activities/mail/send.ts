import type { Db } from '../../db/connect';
import type { MailMessage } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { type Mailer, MailNotSent, type OutgoingMail } from '../../lib/mail';
import { recordAudit, recordObservation } from '../audit/audit';

/** A mail that was not delivered goes on the record (`mail.failed`), where its sender can see it. */
function failedEntry(mail: MailMessage) {
  return {
    tenantId: mail.tenant_id!,
    documentId: mail.document_id,
    actor: { type: 'system' as const },
    action: 'mail.failed' as const,
    data: { mail_id: mail.id, purpose: mail.purpose, to: mail.to_address, signer_id: mail.signer_id, error: mail.error },
  };
}

async function recordFailed(db: Db, mail: MailMessage): Promise<void> {
  if (!mail.tenant_id) return;
  await recordObservation(db, failedEntry(mail));
}

/** Sends a mail a person is waiting for (a code) at once: 503 when it does not go out, and recorded. */
export async function sendNow(deps: { db: Db; mailer: Mailer }, mail: OutgoingMail): Promise<MailMessage> {
  try {
    return await deps.mailer.send(mail);
  } catch (error) {
    if (!(error instanceof MailNotSent)) throw error;
    await recordFailed(deps.db, error.mail);
    throw errors.serviceUnavailable(t('errors.mail.e_mail_could_not_sent'));
  }
}

/** The mail workflow gave up on a queued mail: it is failed, on the record once. */
export async function failQueuedMail(deps: { db: Db; mailer: Mailer }, mailId: string, reason: string): Promise<void> {
  // The failed row and its audit line commit together: nobody sees a failed invitation without its record.
  await deps.db.transaction(async (trx) => {
    const failed = await deps.mailer.fail(mailId, reason, trx);
    if (failed?.tenant_id) await recordAudit(trx, failedEntry(failed));
  });
}
