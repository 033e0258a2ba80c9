import { ApplicationFailure, log } from '@temporalio/activity';
import { Apply } from '../../db/models';
import { ERROR_CATALOGUE, type ErrorCode, errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { createDocumentActivities } from '../documents/activities';
import { heartbeatDoing } from '../progress';
import { type ReleaseDeps, settleLinkedTransfers } from '../transfers/release';
import { applySignature } from './apply';
import type { ApplyDeps } from './apply-deps';
import { rejectApply } from './apply-record';
import { completeDocument } from './complete';

/** The apply's activities in the document workflow: the apply rules of activities/apply, with heartbeats. */
export function createApplyActivities(deps: ApplyDeps & ReleaseDeps) {
  return {
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
  };
}

/** What the document workflow runs: its own activities (activities/documents/activities.ts) and the apply's. */
export type DocumentActivities = ReturnType<typeof createDocumentActivities> & ReturnType<typeof createApplyActivities>;

/**
 * A dependency of the apply that is down (the timestamp authority, the blob store) is retried within
 * the apply's budget; should it stay down, the apply ends `sign_failed` with this reason.
 */
function retriedWhileDown(error: unknown): never {
  if (error instanceof ServiceError && error.code === 'service_unavailable')
    throw ApplicationFailure.retryable(`${error.message} Nothing was applied.`, 'sign_failed');
  throw error;
}
