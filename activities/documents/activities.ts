import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/connect';
import { Document } from '../../db/models';
import type { MailQueueDeps } from '../mail/queue';
import type { WorkLane } from '../workflows';
import { expireDocument } from './expiry';
import { inviteSigners } from './invitations';
import { mailCompletedCopies, notifyPrincipalOfApply, notifyRejectedApply } from './notify';
import { remindOnSchedule } from './reminders';

/** What the document workflow's own activities work with (the apply's are activities/apply/activities.ts): the mail queue. */
export type DocumentLifeDeps = MailQueueDeps & { db: Db; secret: Buffer };

/** The document workflow's activities around the apply: its start, invitations, reminders, expiry and the mails after an apply. */
export function createDocumentActivities(deps: DocumentLifeDeps) {
  return {
    /**
     * The document's status once it has left draft. The workflow starts after the transaction that
     * sends the document committed (activities/workflow-starts.ts), so the first look finds it sent;
     * while it is missing or a draft (runs started from inside that transaction by earlier releases)
     * the activity is retried, within its budget: a send that never committed ends the workflow.
     */
    async documentSent(documentId: string): Promise<{ status: string }> {
      const document = await Document.query(deps.db).findById(documentId);
      if (!document || document.status === 'draft')
        throw ApplicationFailure.retryable(`Document ${documentId} is not sent (yet).`, 'not_sent');
      return { status: document.status };
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
