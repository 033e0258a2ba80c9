import { ApplicationFailure, log } from '@temporalio/activity';
import { Apply, Document } from '../../db/models';
import { ERROR_CATALOGUE, type ErrorCode, errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { MailQueueDeps } from '../mail/queue';
import { heartbeatDoing } from '../progress';
import { settleLinkedTransfers } from '../transfers/release';
import type { WorkLane } from '../workflows';
import { applySignature } from './apply';
import type { ApplyDeps } from './apply-deps';
import { rejectApply } from './apply-record';
import { completeDocument } from './complete';
import { expireDocument } from './expiry';
import { inviteSigners } from './invitations';
import { mailCompletedCopies, notifyPrincipalOfApply, notifyRejectedApply } from './notify';
import { remindOnSchedule } from './reminders';

/** The document workflow's activities: the apply rules of activities/documents, with heartbeats. */
/** What the document workflow's activities work with: the apply rules and the mail queue. */
export type DocumentActivityDeps = ApplyDeps & MailQueueDeps & { secret: Buffer };

export function createDocumentActivities(deps: DocumentActivityDeps) {
  return {
    /**
     * The document's status once it has left draft. The workflow may start inside the transaction
     * that creates or sends the document: until that commits, the document is missing or a draft,
     * and the activity is retried (within its budget: a rolled-back send ends the workflow).
     */
    async documentSent(documentId: string): Promise<{ status: string }> {
      const document = await Document.query(deps.db).findById(documentId);
      if (!document || document.status === 'draft')
        throw ApplicationFailure.retryable(`Document ${documentId} is not sent (yet).`, 'not_sent');
      return { status: document.status };
    },
    async applySignature(applyId: string) {
      const outcome = await applySignature(deps, applyId, heartbeatDoing).catch(retriedWhileDown);
      // The last signature completed the document: its sign-to-unlock packages are released now (retried with this activity).
      if (outcome.document_status === 'completed')
        await settleLinkedTransfers(deps, (await Apply.query(deps.db).findById(applyId))!.document_id);
      return outcome;
    },
    /** The apply could not be made within its retry budget (or was refused as a rule): it ends rejected. */
    async rejectApply(applyId: string, failure: { type?: string; message?: string }) {
      log.warn('apply ended without being applied', { applyId, ...failure });
      // A rule's rejection keeps its code and words; anything else is sign_failed, with no internals shown.
      const error =
        failure.type && failure.type in ERROR_CATALOGUE
          ? new ServiceError(failure.type as ErrorCode, failure.message ?? t('errors.documents.signature_not_applied'))
          : errors.signFailed(t('errors.documents.signing_step_failed'));
      return rejectApply(deps.db, applyId, error);
    },
    async completeDocument(documentId: string) {
      const outcome = await completeDocument(deps, documentId, heartbeatDoing).catch(retriedWhileDown);
      if (outcome.completed) await settleLinkedTransfers(deps, documentId);
      return outcome;
    },
    async notifyApplied(applyId: string): Promise<boolean> {
      return notifyPrincipalOfApply(deps, applyId);
    },
    /** The principal (L1/L2) or the browser signer is told why their signature was not applied. */
    async notifyRejected(applyId: string): Promise<boolean> {
      return notifyRejectedApply(deps, applyId);
    },
    /** Every signer and the sender's principal get the completed PDF. */
    async mailCompletedCopies(documentId: string): Promise<number> {
      return mailCompletedCopies(deps, documentId);
    },
    /** `lane` bulk: a bulk-made document's invitations are delivered on the bulk lane. */
    async inviteSigners(documentId: string, lane?: WorkLane): Promise<number> {
      return inviteSigners(deps, documentId, lane);
    },
    /** The schedule's reminder round `round` (1 … max): the signers who may sign now, mailed once each. */
    async remindSigners(documentId: string, round: number): Promise<number> {
      return remindOnSchedule(deps, documentId, round);
    },
    /** expires_at passed: the document expires unless it already left `sent`; answers its status. */
    async expireDocument(documentId: string): Promise<{ status: string }> {
      return expireDocument(deps, documentId);
    },
  };
}
export type DocumentActivities = ReturnType<typeof createDocumentActivities>;

/**
 * A dependency of the apply that is down (the timestamp authority, the blob store) is retried within
 * the apply's budget; should it stay down, the apply ends `sign_failed` with this reason.
 */
function retriedWhileDown(error: unknown): never {
  if (error instanceof ServiceError && error.code === 'service_unavailable')
    throw ApplicationFailure.retryable(`${error.message} Nothing was applied.`, 'sign_failed');
  throw error;
}
