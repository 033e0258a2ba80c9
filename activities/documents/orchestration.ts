import { WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Config } from '../config/config';
import type { Db } from '../../db/connect';
import type { TemporalDeps } from '../../worker/deps';
import type { documentWorkflow } from '../../workflows/document/workflow';
import {
  applySignal,
  DOCUMENT_WORKFLOW,
  documentWorkflowId,
  settledSignal,
  type DocumentWorkflowInput,
} from '../../workflows/document/shared';
import { confirmSignal, declineSignal, SIGN_REQUEST_WORKFLOW, signRequestWorkflowId } from '../../workflows/sign-request/shared';
import type { signRequestWorkflow } from '../../workflows/sign-request/workflow';
import { ServiceError } from '../errors';
import { pollUntil } from '../poll';
import type { Apply } from '../../db/models';
import { applyOutcome, rejectApply, type ApplyOutcome } from './apply';

// gRPC status codes that mean "not reachable now": CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE.
const UNAVAILABLE = new Set([1, 4, 8, 10, 14]);

function isUnreachable(error: unknown): boolean {
  for (
    let cause = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    cause && depth < 5;
    cause = cause.cause as typeof cause, depth += 1
  ) {
    if (typeof cause.code === 'number' && UNAVAILABLE.has(cause.code)) return true;
  }
  return false;
}

/**
 * One call to Temporal from a request: bounded by SVC_TEMPORAL_CALL_TIMEOUT_MS, and answered as 503
 * service_unavailable when Temporal cannot be reached (never a 500, never a request left hanging).
 */
export async function temporalCall<T>(temporal: TemporalDeps, config: Config, call: () => Promise<T>): Promise<T> {
  try {
    return await temporal.connection.withDeadline(Date.now() + config.durations.temporalCallMs, call);
  } catch (error) {
    if (isUnreachable(error))
      throw new ServiceError('service_unavailable', 'The workflow service (Temporal) is unreachable; nothing was done. Retry later.');
    throw error;
  }
}

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
        : new ServiceError('service_unavailable', 'The signature could not be handed over; nothing was applied. Retry later.');
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
