import { WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Db } from '../../db/connect';
import type { Apply } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { errors, ServiceError } from '../../lib/errors';
import { pollUntil } from '../../lib/poll';
import { type TemporalDeps, temporalCall } from '../../lib/temporal';
import {
  applySignal,
  DOCUMENT_WORKFLOW,
  type DocumentWorkflowInput,
  documentWorkflowId,
  settledSignal,
} from '../../workflows/document/shared';
import type { documentWorkflow } from '../../workflows/document/workflow';
import { confirmSignal, declineSignal, SIGN_REQUEST_WORKFLOW, signRequestWorkflowId } from '../../workflows/sign-request/shared';
import type { signRequestWorkflow } from '../../workflows/sign-request/workflow';
import { type ApplyOutcome, applyOutcome, rejectApply } from './apply';

function workflowInput(config: Config, documentId: string): DocumentWorkflowInput {
  const { durations } = config;
  return {
    documentId,
    activityTimeoutMs: durations.activityTimeoutMs,
    heartbeatMs: durations.activityHeartbeatMs,
    retryInitialMs: durations.retryInitialMs,
    retryMaxMs: durations.retryMaxMs,
    applyAttempts: durations.applyAttempts,
    activityAttempts: durations.activityAttempts,
  };
}

/** Starts the document's workflow, or joins the one already running (business key: the document id). */
export async function startDocumentWorkflow(temporal: TemporalDeps, config: Config, documentId: string): Promise<void> {
  await temporalCall(temporal, config, () =>
    temporal.client.workflow.start<typeof documentWorkflow>(DOCUMENT_WORKFLOW, {
      workflowId: documentWorkflowId(documentId),
      taskQueue: temporal.taskQueue,
      args: [workflowInput(config, documentId)],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    }),
  );
}

/** Hands a recorded apply to the document's workflow (starting it if needed); the signal is durable. */
export async function signalApply(temporal: TemporalDeps, config: Config, documentId: string, applyId: string): Promise<void> {
  await temporalCall(temporal, config, () =>
    temporal.client.workflow.signalWithStart<typeof documentWorkflow, [{ applyId: string }]>(DOCUMENT_WORKFLOW, {
      workflowId: documentWorkflowId(documentId),
      taskQueue: temporal.taskQueue,
      args: [workflowInput(config, documentId)],
      signal: applySignal,
      signalArgs: [{ applyId }],
    }),
  );
}

/**
 * Signals a just-recorded apply to its document's workflow. When Temporal cannot take it, the apply
 * ends rejected (giving back an L2 slot it holds), so nothing is left pending behind a 503.
 */
export async function handOverApply(deps: { db: Db; temporal: TemporalDeps; config: Config }, apply: Apply): Promise<void> {
  try {
    await signalApply(deps.temporal, deps.config, apply.document_id, apply.id);
  } catch (error) {
    const reason =
      error instanceof ServiceError
        ? error
        : errors.serviceUnavailable('The signature could not be handed over; nothing was applied. Retry later.');
    await rejectApply(deps.db, apply.id, reason);
    throw error;
  }
}

/** Tells a running document workflow that the document settled outside it (a decline); best effort. */
export async function signalSettled(temporal: TemporalDeps, config: Config, documentId: string): Promise<void> {
  await temporalCall(temporal, config, () =>
    temporal.client.workflow.getHandle(documentWorkflowId(documentId)).signal(settledSignal),
  ).catch(() => undefined);
}

/** Waits up to `timeoutMs` for an apply to be applied or rejected; pending when it is still in flight. */
export async function waitForApply(db: Db, applyId: string, timeoutMs: number): Promise<ApplyOutcome> {
  return pollUntil(
    async () => (await applyOutcome(db, applyId))!,
    (outcome) => outcome.status !== 'pending',
    timeoutMs,
  );
}

/** Starts an L1 sign request's workflow (business key: the request id). */
export async function startSignRequestWorkflow(temporal: TemporalDeps, config: Config, signRequestId: string): Promise<void> {
  const { durations } = config;
  await temporalCall(temporal, config, () =>
    temporal.client.workflow.start<typeof signRequestWorkflow>(SIGN_REQUEST_WORKFLOW, {
      workflowId: signRequestWorkflowId(signRequestId),
      taskQueue: temporal.taskQueue,
      args: [
        {
          signRequestId,
          lifetimeMs: durations.signRequestMs,
          activityTimeoutMs: durations.activityTimeoutMs,
          heartbeatMs: durations.activityHeartbeatMs,
          retryInitialMs: durations.retryInitialMs,
          retryMaxMs: durations.retryMaxMs,
          activityAttempts: durations.activityAttempts,
        },
      ],
    }),
  );
}

/** Wakes the request's workflow after the app recorded the principal's decision (the workflow reads it). */
export async function signalSignRequest(
  temporal: TemporalDeps,
  config: Config,
  signRequestId: string,
  decision: 'confirm' | 'decline',
): Promise<void> {
  await temporalCall(temporal, config, () =>
    temporal.client.workflow
      .getHandle(signRequestWorkflowId(signRequestId))
      .signal(decision === 'confirm' ? confirmSignal : declineSignal, {}),
  );
}
