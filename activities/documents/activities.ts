import { ApplicationFailure, heartbeat } from '@temporalio/activity';
import { Document } from '../../db/models';
import type { Deps } from '../../worker/deps';
import { applySignature } from './apply';
import { completeDocument } from './complete';
import { inviteSigners } from './invitations';
import { notifyPrincipalOfApply } from './notify';

/** The document workflow's activities: the apply rules of activities/documents, with heartbeats. */
export function createDocumentActivities(deps: Deps) {
  return {
    /** The document's status once it has left draft (a draft is retried: the send may not have committed yet). */
    async documentSent(documentId: string): Promise<{ status: string }> {
      const document = await Document.query(deps.db).findById(documentId);
      if (!document) throw ApplicationFailure.nonRetryable(`No document ${documentId}.`, 'not_found');
      if (document.status === 'draft') throw ApplicationFailure.retryable(`Document ${documentId} is not sent yet.`, 'not_sent');
      return { status: document.status };
    },
    async applySignature(applyId: string) {
      return applySignature(deps, applyId, () => heartbeat());
    },
    async completeDocument(documentId: string) {
      return completeDocument(deps, documentId, () => heartbeat());
    },
    async notifyApplied(applyId: string): Promise<boolean> {
      return notifyPrincipalOfApply(deps, applyId);
    },
    async inviteSigners(documentId: string): Promise<number> {
      return inviteSigners({ db: deps.db, mailer: deps.mailer, secret: deps.secret, appUrl: deps.config.appUrl }, documentId);
    },
  };
}
export type DocumentActivities = ReturnType<typeof createDocumentActivities>;
