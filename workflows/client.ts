/**
 * The rules' `Workflows` port (activities/workflows.ts) implemented on the Temporal client: the one
 * place that knows which workflow, id, signal or update carries each call. Client side only: the
 * workflow bundle (workflows/index.ts) never imports this file, and runtime/ wires it.
 */
import {
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowNotFoundError,
  type WorkflowStartOptions,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { ApplyWaiter, Workflows, WorkLane } from '../activities/workflows';
import type { Config } from '../lib/config/config';
import { type TemporalDeps, temporalCall } from '../lib/temporal';
import { BULK_WORKFLOW, type BulkWorkflowInput, bulkTaskQueue, bulkWorkflowId } from './bulk/shared';
import {
  applySettledUpdate,
  applySignal,
  DOCUMENT_WORKFLOW,
  type DocumentWorkflowInput,
  documentWorkflowId,
  settledSignal,
} from './document/shared';
import { labelledStarts, type StartLabels, workLabels } from './labels';
import { MAIL_WORKFLOW, type MailWorkflowInput, mailWorkflowId } from './mail/shared';
import { OFFER_WORKFLOW, type OfferWorkflowInput, offerWorkflowId } from './offer/shared';
import {
  confirmSignal,
  declineSignal,
  SIGN_REQUEST_WORKFLOW,
  type SignRequestWorkflowInput,
  signRequestSettledUpdate,
  signRequestWorkflowId,
} from './signing/shared';
import { TRANSFER_WORKFLOW, type TransferWorkflowInput, transferWorkflowId } from './transfer/shared';
import { wakeSignal } from './wake';
import { DELIVERY_WORKFLOW, type DeliveryWorkflowInput, deliveryWorkflowId } from './webhook/shared';

/** The workflow a waiter names, woken by the document's workflow when its apply settles. */
export function waiterWorkflowId(waiter: ApplyWaiter): string {
  return 'offerId' in waiter ? offerWorkflowId(waiter.offerId) : signRequestWorkflowId(waiter.signRequestId);
}

/** What `work` came to within `ms`: its result, or nothing (failed, or not yet: it goes on, its failure ignored). */
async function settledWithin<T>(work: Promise<T>, ms: number): Promise<{ settled: true; value: T } | { settled: false }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ settled: false }>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), Math.max(0, ms));
  });
  return Promise.race([
    work.then(
      (value) => ({ settled: true as const, value }),
      () => ({ settled: false as const }),
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

export function temporalWorkflows(temporal: TemporalDeps, config: Config): Workflows {
  const { durations } = config;
  const labelled = labelledStarts(temporal.log);
  const { workflow } = temporal.client;
  const taskQueue = temporal.taskQueue;
  /** Bounded by SVC_TEMPORAL_CALL_TIMEOUT_MS; unreachable → 503. */
  const call = <T>(work: () => Promise<T>) => temporalCall(temporal, config, work);
  const retry = {
    activityTimeoutMs: durations.activityTimeoutMs,
    retryInitialMs: durations.retryInitialMs,
    retryMaxMs: durations.retryMaxMs,
    activityAttempts: durations.activityAttempts,
  };
  const documentInput = (documentId: string, waits?: DocumentWorkflowInput['waits'], lane?: WorkLane): DocumentWorkflowInput => ({
    documentId,
    ...(waits ? { waits } : {}),
    ...(lane ? { lane } : {}),
    ...retry,
    heartbeatMs: durations.activityHeartbeatMs,
    applyAttempts: durations.applyAttempts,
  });
  /** Starts a workflow on the service's task queue with what labels it for operators (labels.ts). */
  const start = (type: string, labels: StartLabels, options: Omit<WorkflowStartOptions, 'taskQueue'>) =>
    labelled(labels, (extra) => workflow.start(type, { taskQueue, ...options, ...extra }));
  /**
   * What the document's workflow says the apply came to by `deadline`: the `applySettled` update, sent
   * once more when it was lost on the way. The update is idempotent (the workflow takes an apply once
   * and answers every update for it): one lost (Temporal restarted before it was durable, or refused it
   * for a moment) is sent again while time is left. Undefined when it cannot say (out of time, Temporal
   * unreachable, the workflow ended): the caller reads what was made, never polls.
   */
  const settledBy = async (documentId: string, applyId: string, deadline: number) => {
    const handle = workflow.getHandle(documentWorkflowId(documentId));
    const settled = () =>
      temporal.connection.withDeadline(deadline, () => handle.executeUpdate(applySettledUpdate, { args: [{ applyId }] }));
    try {
      return (await settled()).outcome;
    } catch (error) {
      if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || Date.now() >= deadline) return undefined;
      return (await settled().catch(() => undefined))?.outcome;
    }
  };
  /** A wake-up of a workflow that already ended has nothing to wake. */
  const wake = async (workflowId: string) => {
    try {
      await call(() => workflow.getHandle(workflowId).signal(wakeSignal));
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  };

  return {
    log: temporal.log,

    async startDocument(document, signers, waits, lane) {
      await call(() =>
        start(DOCUMENT_WORKFLOW, workLabels.document(document, signers), {
          workflowId: documentWorkflowId(document.id),
          args: [documentInput(document.id, waits, lane)],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        }),
      );
    },

    async apply(apply, { deadline, waiter }) {
      const labels = workLabels.document({ id: apply.document_id, tenant_id: apply.tenant_id });
      const startOptions = { workflowId: documentWorkflowId(apply.document_id), taskQueue, args: [documentInput(apply.document_id)] };
      // The durable hand-over: a signal (carrying the waiter), 503 when Temporal cannot take it.
      const signal = () =>
        call(() =>
          labelled(labels, (extra) =>
            workflow.signalWithStart(DOCUMENT_WORKFLOW, {
              ...startOptions,
              signal: applySignal,
              signalArgs: [waiter ? { applyId: apply.id, waiter: waiterWorkflowId(waiter) } : { applyId: apply.id }],
              // Only when it starts the workflow here (a document whose workflow ended): its name is not at hand.
              ...extra,
            }),
          ),
        );
      if (deadline === undefined) return void (await signal());
      if (!waiter) {
        // Most applies settle well within half the Temporal call budget: the update-with-start answers
        // them in one hand-off. Its call is bounded by that too, so nothing is left retrying towards
        // Temporal once the request has answered (a retry after the connection closed would throw from
        // its timer); the signal does not wait for the call's own end (its retries overshoot the deadline).
        const handOverBy = Math.min(deadline, Date.now() + durations.temporalCallMs / 2);
        const updated = temporal.connection.withDeadline(handOverBy, () =>
          labelled(labels, (extra) =>
            workflow.executeUpdateWithStart(applySettledUpdate, {
              args: [{ applyId: apply.id }],
              startWorkflowOperation: new WithStartWorkflowOperation(DOCUMENT_WORKFLOW, {
                ...startOptions,
                workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
                ...extra,
              }),
            }),
          ),
        );
        const early = await settledWithin(updated, handOverBy - Date.now());
        if (early.settled) return early.value.outcome;
      }
      // Not answered by then (a worker down, Temporal slow or unreachable), refused, or a waiter to name:
      // the durable signal, which joins the update when that was taken after all; then the wait goes on.
      await signal();
      return settledBy(apply.document_id, apply.id, deadline);
    },

    async documentSettled(documentId, status) {
      await call(() => workflow.getHandle(documentWorkflowId(documentId)).signal(settledSignal, { status }));
    },

    async startSignRequest(request) {
      await call(() =>
        start(SIGN_REQUEST_WORKFLOW, workLabels.signRequest(request), {
          workflowId: signRequestWorkflowId(request.id),
          args: [
            {
              signRequestId: request.id,
              lifetimeMs: durations.signRequestMs,
              expiresAtMs: request.expires_at.getTime(),
              heartbeatMs: durations.activityHeartbeatMs,
              ...retry,
            } satisfies SignRequestWorkflowInput,
          ],
        }),
      );
    },

    async decideSignRequest(signRequestId, decision) {
      await call(() =>
        workflow.getHandle(signRequestWorkflowId(signRequestId)).signal(decision === 'confirm' ? confirmSignal : declineSignal, {}),
      );
    },

    async signRequestSettled(signRequestId, deadline) {
      const handle = workflow.getHandle(signRequestWorkflowId(signRequestId));
      return temporal.connection.withDeadline(deadline, () => handle.executeUpdate(signRequestSettledUpdate));
    },

    async startOffer(offer) {
      await call(() =>
        start(OFFER_WORKFLOW, workLabels.offer(offer), {
          workflowId: offerWorkflowId(offer.id),
          args: [
            {
              offerId: offer.id,
              expiresAtMs: offer.expires_at.getTime(),
              recheckMs: durations.retryMaxMs,
              heartbeatMs: durations.activityHeartbeatMs,
              ...retry,
            } satisfies OfferWorkflowInput,
          ],
        }),
      );
    },

    wakeOffer: (offerId) => wake(offerWorkflowId(offerId)),

    wakeSignRequest: (signRequestId) => wake(signRequestWorkflowId(signRequestId)),

    async startMail(mail, lane) {
      await call(() =>
        start(MAIL_WORKFLOW, workLabels.mail(mail), {
          workflowId: mailWorkflowId(mail.id),
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          args: [
            {
              mailId: mail.id,
              attempts: durations.mailAttempts,
              retryInitialMs: durations.retryInitialMs,
              retryMaxMs: durations.retryMaxMs,
              activityTimeoutMs: durations.activityTimeoutMs,
              ...(lane === 'bulk' ? { deliverQueue: bulkTaskQueue(taskQueue) } : {}),
            } satisfies MailWorkflowInput,
          ],
        }),
      );
    },

    async startTransfer(transfer) {
      await call(() =>
        start(TRANSFER_WORKFLOW, workLabels.transfer(transfer), {
          workflowId: transferWorkflowId(transfer.id),
          args: [{ transferId: transfer.id, recheckMs: durations.transferRecheckMs, ...retry } satisfies TransferWorkflowInput],
        }),
      );
    },

    wakeTransfer: (transferId) => wake(transferWorkflowId(transferId)),

    async startBulk(bulk) {
      await call(() =>
        start(BULK_WORKFLOW, workLabels.bulk(bulk), {
          workflowId: bulkWorkflowId(bulk.id),
          args: [
            {
              bulkId: bulk.id,
              total: bulk.total,
              concurrency: config.bulkConcurrency,
              itemQueue: bulkTaskQueue(taskQueue),
              ...retry,
            } satisfies BulkWorkflowInput,
          ],
        }),
      );
    },

    async startDelivery(delivery, attemptsMade) {
      // Not bounded like a request's call: the relay's activity has its own timeout and retries.
      await start(DELIVERY_WORKFLOW, workLabels.delivery(delivery, durations.webhookGiveUpMs), {
        workflowId: deliveryWorkflowId(delivery.id),
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        args: [
          {
            deliveryId: delivery.id,
            retryInitialMs: durations.webhookRetryInitialMs,
            retryMaxMs: durations.webhookRetryMaxMs,
            giveUpMs: durations.webhookGiveUpMs,
            attemptTimeoutMs: durations.webhookTimeoutMs,
            attemptsMade,
          } satisfies DeliveryWorkflowInput,
        ],
      });
    },
  };
}
