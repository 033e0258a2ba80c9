// Voiding a sent document: by its account's agent (POST /v1/documents/:id/void) or by its owner in the app.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Document, DocumentSigner, type Principal, Transfer, TransferRecipient } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { bestEffort } from '../../lib/temporal';
import { normalizeEmail } from '../accounts/accounts';
import { type Actor, recordAudit } from '../audit/audit';
import { emitEvent } from '../events/outbox';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import type { Workflows } from '../workflows';
import { signersOf } from './documents';
import { endOpenWork, wakeEndedWork } from './ending';
import { invitationsOf } from './invitations';
import { voidedMail } from './mails';
import { signersAllowedNow } from './turn';

export type VoidDeps = MailQueueDeps & { db: Db; workflows: Workflows };

/** Who voids: an agent of the document's account (any other id is 404), or a principal in the app (only the owner; 404 unless they see it). */
export type Voider = { tenantId: string } | { principal: Principal };

/** The longest reason a void takes (it is mailed to the signers and shown on their sign links). */
export const VOID_REASON_MAX = 1000;

async function lockForVoid(trx: Knex.Transaction, who: Voider, id: string): Promise<Document> {
  const document = await Document.query(trx).findById(id).forUpdate();
  if ('tenantId' in who) {
    if (!document || document.tenant_id !== who.tenantId) throw errors.notFound(t('errors.documents.no_such_document'));
    return document;
  }
  if (!document) throw errors.notFound(t('errors.documents.no_such_document'));
  if (document.owner_principal_id === who.principal.id) return document;
  // A signer sees the document in the app (once sent), so it is not hidden from them: it is just not theirs to void.
  const email = normalizeEmail(who.principal.email);
  const signs = document.status !== 'draft' && (await DocumentSigner.query(trx).where({ document_id: id, email }).resultSize()) > 0;
  if (!signs) throw errors.notFound(t('errors.documents.no_such_document'));
  throw errors.notOwner(t('errors.documents.only_principal_who_sent_document'));
}

/**
 * sent → voided, in one transaction: the reason and who voided it recorded (audit, event
 * `document.voided`), open L1 requests and offers on it ended, its sign-to-unlock packages cancelled
 * (claim links revoked), and each pending signer who was sent a link mailed why. Then its workflow
 * is told it settled, and the workflows of what ended are woken.
 */
export async function voidDocument(deps: VoidDeps, who: Voider, id: string, reason: string, actor: Actor): Promise<Document> {
  const why = reason.trim();
  if (!why || why.length > VOID_REASON_MAX)
    throw errors.invalidRequest(t('errors.documents.void_needs_reason'), [
      { path: 'reason', message: `1 to ${VOID_REASON_MAX} characters` },
    ]);
  const { voided, ended, transfers } = await deps.db.transaction(async (trx) => {
    const document = await lockForVoid(trx, who, id);
    if (document.status !== 'sent')
      throw errors.invalidState(t('errors.documents.only_sent_document_can_voided', { status: document.status }));
    const now = new Date();
    const voided = await document.$query(trx).patchAndFetch({ status: 'voided', voided_at: now, void_reason: why });
    const ended = await endOpenWork(trx, document, { code: 'invalid_state', message: `The document was voided by its sender: ${why}` });
    const transfers = await cancelLinkedTransfers(trx, document, actor);
    await recordAudit(trx, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor,
      action: 'document.voided',
      data: { reason: why, sign_requests: ended.signRequests, offers: ended.offers, transfers },
    });
    await emitEvent(trx, document.tenant_id, 'document.voided', {
      document_id: document.id,
      name: document.name,
      reason: why,
      voided_at: now.toISOString(),
      voided_by: { type: actor.type === 'agent' ? 'agent' : 'principal', id: actor.id ?? '' },
    });
    await mailVoided(deps, trx, voided);
    return { voided, ended, transfers };
  });
  await bestEffort(deps.workflows, `settled signal to ${id}`, () => deps.workflows.documentSettled(id, 'voided'));
  await wakeEndedWork(deps.workflows, ended);
  for (const transferId of transfers)
    await bestEffort(deps.workflows, `wake-up of ${transferId}`, () => deps.workflows.wakeTransfer(transferId));
  return voided;
}

/** A voided document's sign-to-unlock packages (created or offered) are cancelled: their files never unlock, their claim links stop. */
async function cancelLinkedTransfers(trx: Knex.Transaction, document: Document, actor: Actor): Promise<string[]> {
  const linked = await Transfer.query(trx).where({ document_id: document.id }).whereIn('status', ['created', 'offered']).forUpdate();
  for (const transfer of linked) {
    await transfer.$query(trx).patch({ status: 'cancelled', cancelled_at: new Date(), blocked_reason: 'The linked document was voided.' });
    await TransferRecipient.query(trx).where({ transfer_id: transfer.id }).patch({ token_hash: null });
    await recordAudit(trx, { tenantId: transfer.tenant_id, actor, action: 'transfer.cancelled', data: { transfer_id: transfer.id } });
  }
  return linked.map((transfer) => transfer.id);
}

/**
 * Each pending signer who was sent a sign link, or whose turn it is (their invitation may be on its
 * way), hears that it no longer works, and why; under strict order, later signers never heard of it.
 */
async function mailVoided(deps: VoidDeps, trx: Knex.Transaction, document: Document): Promise<void> {
  const signers = await signersOf(trx, document.id);
  const pending = signers.filter((signer) => signer.status === 'pending');
  const invited = await invitationsOf(
    trx,
    pending.map((signer) => signer.id),
  );
  const now = new Set(signersAllowedNow(document, signers).map((signer) => signer.id));
  for (const signer of pending.filter((s) => invited.has(s.id) || now.has(s.id))) {
    await queueMail(
      deps,
      {
        to: signer.email,
        ...voidedMail({ signerName: signer.name, documentName: document.name, reason: document.void_reason }),
        purpose: 'document-voided',
        tenantId: document.tenant_id,
        dedupeKey: `document-voided:${signer.id}`,
        documentId: document.id,
        signerId: signer.id,
      },
      trx,
    );
  }
}
