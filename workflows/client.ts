/**
 * The rules' `Workflows` port (activities/workflows.ts) implemented on the Temporal client: the one
 * place that knows which workflow, id, signal or update carries each call. Client side only: the
 * workflow bundle (workflows/index.ts) never imports this file, and runtime/ wires it.
 */
import { WorkflowIdConflictPolicy, WorkflowNotFoundError } from '@temporalio/client';
import type { ApplyWaiter, Workflows } from '../activities/workflows';
import type { Config } from '../lib/config/config';
import { type TemporalDeps, temporalCall } from '../lib/temporal';
import {
  applySettledUpdate,
  applySignal,
  DOCUMENT_WORKFLOW,
  type DocumentWorkflowInput,
  documentWorkflowId,
  settledSignal,
} from './document/shared';
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

export function temporalWorkflows(temporal: TemporalDeps, config: Config): Workflows {
  const { durations } = config;
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
  const documentInput = (documentId: string): DocumentWorkflowInput => ({
    documentId,
    ...retry,
    heartbeatMs: durations.activityHeartbeatMs,
    applyAttempts: durations.applyAttempts,
  });
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

    async startDocument(documentId) {
      await call(() =>
        workflow.start(DOCUMENT_WORKFLOW, {
          workflowId: documentWorkflowId(documentId),
          taskQueue,
          args: [documentInput(documentId)],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        }),
      );
    },

    async handOverApply(documentId, applyId, waiter) {
      await call(() =>
        workflow.signalWithStart(DOCUMENT_WORKFLOW, {
          workflowId: documentWorkflowId(documentId),
          taskQueue,
          args: [documentInput(documentId)],
          signal: applySignal,
          signalArgs: [waiter ? { applyId, waiter: waiterWorkflowId(waiter) } : { applyId }],
        }),
      );
    },

    async applySettled(documentId, applyId, deadline) {
      const handle = workflow.getHandle(documentWorkflowId(documentId));
      await temporal.connection.withDeadline(deadline, () => handle.executeUpdate(applySettledUpdate, { args: [{ applyId }] }));
    },

    async documentSettled(documentId) {
      await call(() => workflow.getHandle(documentWorkflowId(documentId)).signal(settledSignal));
    },

    async startSignRequest(signRequestId, expiresAt) {
      await call(() =>
        workflow.start(SIGN_REQUEST_WORKFLOW, {
          workflowId: signRequestWorkflowId(signRequestId),
          taskQueue,
          args: [
            {
              signRequestId,
              lifetimeMs: durations.signRequestMs,
              expiresAtMs: expiresAt.getTime(),
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

    async startOffer(offerId, expiresAt) {
      await call(() =>
        workflow.start(OFFER_WORKFLOW, {
          workflowId: offerWorkflowId(offerId),
          taskQueue,
          args: [
            {
              offerId,
              expiresAtMs: expiresAt.getTime(),
              recheckMs: durations.retryMaxMs,
              heartbeatMs: durations.activityHeartbeatMs,
              ...retry,
            } satisfies OfferWorkflowInput,
          ],
        }),
      );
    },

    wakeOffer: (offerId) => wake(offerWorkflowId(offerId)),

    async startMail(mailId) {
      await call(() =>
        workflow.start(MAIL_WORKFLOW, {
          workflowId: mailWorkflowId(mailId),
          taskQueue,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          args: [
            {
              mailId,
              attempts: durations.mailAttempts,
              retryInitialMs: durations.retryInitialMs,
              retryMaxMs: durations.retryMaxMs,
              activityTimeoutMs: durations.activityTimeoutMs,
            } satisfies MailWorkflowInput,
          ],
        }),
      );
    },

    async startTransfer(transferId) {
      await call(() =>
        workflow.start(TRANSFER_WORKFLOW, {
          workflowId: transferWorkflowId(transferId),
          taskQueue,
          args: [{ transferId, recheckMs: durations.transferRecheckMs, ...retry } satisfies TransferWorkflowInput],
        }),
      );
    },

    wakeTransfer: (transferId) => wake(transferWorkflowId(transferId)),

    async startDelivery(deliveryId, attemptsMade) {
      // Not bounded like a request's call: the relay's activity has its own timeout and retries.
      await workflow.start(DELIVERY_WORKFLOW, {
        workflowId: deliveryWorkflowId(deliveryId),
        taskQueue,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        args: [
          {
            deliveryId,
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
