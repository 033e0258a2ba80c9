import type { Apply, BulkSend, Delivery, Document, MailMessage, Offer, SignRequest, Transfer } from '../db/models';
import type { Logger } from '../lib/log';
import type { ApplyOutcome } from './apply/apply-outcome';
import type { WorkflowWaits } from './documents/waits';

/** A workflow that waits on an apply and is woken when the document's workflow settled it. */
export type ApplyWaiter = { offerId: string } | { signRequestId: string };

/** How an apply is handed over (Workflows.apply): until when its caller waits (none: not at all), and who is woken. */
export interface ApplyHandOver {
  deadline?: number;
  waiter?: ApplyWaiter;
}

/**
 * How the rules reach the long-running work (Temporal): declared here, by the rules, and implemented
 * once next to the workflows (workflows/client.ts), wired in runtime/. The rules name resources (a
 * document, an apply, an offer); which workflow, signal or update carries it is the implementation's
 * business. Calls made from a request are bounded and answer 503 `service_unavailable` when Temporal
 * cannot be reached; the wake-ups of workflows that already ended are no-ops. No call is made inside a
 * transaction: a rule records its starts with its change and they are made after the commit
 * (workflow-starts.ts startAfterCommit, or the sweep).
 */
/** Bulk work runs on a lane of its own, after other tenants' interactive work (docs/decisions/0032-fair-bulk-work.md). */
export type WorkLane = 'bulk';

export interface Workflows {
  /** Where a best-effort wake-up that failed is logged (lib/temporal bestEffort). */
  readonly log?: Logger;
  /**
   * Starts the document's workflow, or joins the one running (business key: the document id). The
   * rows passed to the starts carry what an operator finds the work by (its tenant, principal, state
   * and deadline) and reads in its summary (ids and the document's name; never an e-mail address).
   */
  startDocument(
    document: Pick<Document, 'id' | 'tenant_id' | 'owner_principal_id' | 'name'>,
    signers: number,
    /** The document's expiry and reminder schedule, for its workflow to wait on. */
    waits?: WorkflowWaits,
    /** `bulk`: made by a bulk send, so its invitations are delivered on the bulk lane (workflows/bulk/shared.ts). */
    lane?: WorkLane,
  ): Promise<void>;
  /**
   * Hands a recorded apply to its document's workflow (starting it if needed) and waits for it until
   * `deadline` (epoch ms), in one call: an update-with-start that the workflow answers once the apply
   * committed. When that has not answered within half a Temporal call timeout, or was lost, the durable
   * hand-over follows inside the implementation, and the wait goes on to the deadline. Without a
   * deadline nothing is waited for: the durable hand-over only. `waiter` is woken by the document's
   * workflow when the apply settles (an offer accepting by L2, an L1 request); it rides on the durable
   * hand-over, made first then. Idempotent: the same apply again (a resumed request, a repeated step)
   * is taken once and waited for again. Resolves with the outcome the workflow gave, or undefined (not
   * settled by the deadline, nothing waited for, a run that gives no outcomes: read the database).
   * Rejects only when Temporal could not take the apply (503; the update may have taken it all the same).
   */
  apply(apply: Pick<Apply, 'id' | 'document_id' | 'tenant_id'>, how: ApplyHandOver): Promise<ApplyOutcome | undefined>;
  /** The document left `sent` outside its workflow (a decline): the workflow stops waiting, showing `status`. */
  documentSettled(documentId: string, status: 'declined' | 'voided'): Promise<void>;
  /** Wakes an L1 sign request's workflow to read what changed (its document expired or was voided). */
  wakeSignRequest(signRequestId: string): Promise<void>;
  /** Starts an L1 sign request's workflow (business key: the request id). */
  startSignRequest(request: Pick<SignRequest, 'id' | 'tenant_id' | 'principal_id' | 'document_id' | 'expires_at'>): Promise<void>;
  /**
   * Wakes the request's workflow: the app recorded the principal's decision (the workflow reads it
   * from the database, never from the caller). Durable; 503 when Temporal cannot take it.
   */
  decideSignRequest(signRequestId: string, decision: 'confirm' | 'decline'): Promise<void>;
  /**
   * Resolves with the request's status once its workflow carried out the decision (applied, failed,
   * declined …); rejects when it cannot say by `deadline` (epoch ms) or the workflow already ended.
   */
  signRequestSettled(signRequestId: string, deadline: number): Promise<string>;
  /** Starts an offer's workflow (business key: the offer id). */
  startOffer(
    offer: Pick<Offer, 'id' | 'from_tenant_id' | 'to_tenant_id' | 'from_principal_id' | 'to_principal_id' | 'document_id' | 'expires_at'>,
  ): Promise<void>;
  /** Wakes an offer's workflow to read what changed. */
  wakeOffer(offerId: string): Promise<void>;
  /** Starts a queued mail's delivery workflow (joined when it runs already). */
  startMail(mail: Pick<MailMessage, 'id' | 'tenant_id' | 'document_id' | 'purpose'>, lane?: WorkLane): Promise<void>;
  /** Starts the unlock wait of an offered package. */
  startTransfer(transfer: Pick<Transfer, 'id' | 'tenant_id' | 'principal_id' | 'mode' | 'document_id'>): Promise<void>;
  /** Wakes a package's unlock wait. */
  wakeTransfer(transferId: string): Promise<void>;
  /** Starts a bulk send's workflow (business key: the bulk id). */
  startBulk(bulk: Pick<BulkSend, 'id' | 'tenant_id' | 'principal_id' | 'name' | 'total'>): Promise<void>;
  /** Starts a webhook delivery's retry workflow after `attemptsMade` attempts (joined when it runs already). */
  startDelivery(
    delivery: Pick<Delivery, 'id' | 'tenant_id' | 'target_kind' | 'target_id' | 'event_id'>,
    attemptsMade: number,
  ): Promise<void>;
}
