// Reminding a sent document's pending signers: on its schedule (its workflow's timers) or now (POST /v1/documents/:id/remind).
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Document, type DocumentSigner, Principal } from '../../db/models';
import { errors, retryAfter } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { type Actor, recordAudit } from '../audit/audit';
import { emitEvent } from '../events/outbox';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import { signersOf } from './documents';
import { signerToken, signUrl } from './links';
import { reminderMail } from './mails';
import { signersAllowedNow } from './turn';

export type ReminderDeps = MailQueueDeps & { db: Db; secret: Buffer };

/** Why a signer is reminded: the schedule's round n (by the system), or a remind call (by its actor). */
type Trigger = { trigger: 'schedule'; round: number } | { trigger: 'remind'; actor: Actor };

/** One signer's reminder, in the caller's transaction: the mail (with their sign link), its audit line and `document.reminded`. */
async function remind(deps: ReminderDeps, trx: Knex.Transaction, document: Document, signer: DocumentSigner, how: Trigger, now: Date) {
  const round = how.trigger === 'schedule' ? how.round : null;
  await signer.$query(trx).patch(round ? { last_reminded_at: now, reminder_round: round } : { last_reminded_at: now });
  const owner = (await Principal.query(trx).findById(document.owner_principal_id))!;
  await queueMail(
    deps,
    {
      to: signer.email,
      ...reminderMail({
        signerName: signer.name,
        role: signer.role,
        ownerName: owner.name,
        ownerEmail: owner.email,
        documentName: document.name,
        signUrl: signUrl(deps.config.appUrl, deps.secret, signer.id),
        expiresAt: document.expires_at,
      }),
      purpose: 'sign-reminder',
      tenantId: document.tenant_id,
      secrets: [signerToken(deps.secret, signer.id)],
      dedupeKey: round ? `sign-reminder:${signer.id}:${round}` : `sign-remind:${signer.id}:${now.getTime()}`,
      documentId: document.id,
      signerId: signer.id,
    },
    trx,
  );
  await recordAudit(trx, {
    tenantId: document.tenant_id,
    documentId: document.id,
    actor: how.trigger === 'remind' ? how.actor : { type: 'system' },
    action: 'document.reminded',
    data: { signer_id: signer.id, email: signer.email, trigger: how.trigger, round },
  });
  await emitEvent(trx, document.tenant_id, 'document.reminded', {
    document_id: document.id,
    signer_id: signer.id,
    signer: { email: signer.email, name: signer.name },
    trigger: how.trigger,
    round,
    reminded_at: now.toISOString(),
  });
}

/**
 * The schedule's round `round`: each signer who may sign now (every pending one, or under strict
 * order the one whose turn it is) and was not yet mailed in this round is reminded. Safe to repeat
 * (a retried activity): the signer's row keeps the last round they were mailed in. Answers how many.
 */
export async function remindOnSchedule(deps: ReminderDeps, documentId: string, round: number, now = new Date()): Promise<number> {
  return deps.db.transaction(async (trx) => {
    const document = await Document.query(trx).findById(documentId).forUpdate();
    if (document?.status !== 'sent') return 0;
    const due = signersAllowedNow(document, await signersOf(trx, documentId)).filter((signer) => signer.reminder_round < round);
    for (const signer of due) await remind(deps, trx, document, signer, { trigger: 'schedule', round }, now);
    return due.length;
  });
}

/**
 * POST /documents/:id/remind: the signers who may sign now are mailed at once. Each signer is
 * reminded at most once per SVC_REMIND_INTERVAL_MS (scheduled reminders count): when one of them was
 * reminded more recently, nobody is mailed and the answer is 429 `rate_limited` with Retry-After.
 */
export async function remindNow(
  deps: ReminderDeps,
  tenantId: string,
  documentId: string,
  actor: Actor,
  now = new Date(),
): Promise<{ document: Document; reminded: DocumentSigner[] }> {
  const interval = deps.config.durations.remindIntervalMs;
  return deps.db.transaction(async (trx) => {
    const document = await Document.query(trx).findById(documentId).where({ tenant_id: tenantId }).forUpdate();
    if (!document) throw errors.notFound(t('errors.documents.no_such_document'));
    if (document.status !== 'sent')
      throw errors.invalidState(t('errors.documents.only_sent_document_signers_can', { status: document.status }));
    const due = signersAllowedNow(document, await signersOf(trx, documentId));
    const waitMs = Math.max(
      0,
      ...due.map((signer) => (signer.last_reminded_at ? signer.last_reminded_at.getTime() + interval - now.getTime() : 0)),
    );
    if (waitMs > 0)
      throw errors.rateLimited(
        t('errors.documents.signer_document_reminded_less_than', { interval: Math.round(interval / 1000), wait: Math.ceil(waitMs / 1000) }),
        [{ path: 'signers', message: 'reminded too recently' }],
        retryAfter(waitMs),
      );
    for (const signer of due) await remind(deps, trx, document, signer, { trigger: 'remind', actor }, now);
    return { document, reminded: due };
  });
}
