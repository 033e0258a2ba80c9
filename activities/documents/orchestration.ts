import { WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Config } from '../config/config';
import type { Db } from '../../db/connect';
import type { TemporalDeps } from '../../worker/deps';
import type { documentWorkflow } from '../../workflows/document/workflow';
import { applySignal, DOCUMENT_WORKFLOW, documentWorkflowId, settledSignal, type DocumentWorkflowInput } from '../../workflows/document/shared';
import { confirmSignal, declineSignal, SIGN_REQUEST_WORKFLOW, signRequestWorkflowId } from '../../workflows/sign-request/shared';
import type { signRequestWorkflow } from '../../workflows/sign-request/workflow';
import { pollUntil } from '../poll';
import { applyOutcome, type ApplyOutcome } from './apply';

function workflowInput(config: Config, documentId: string): DocumentWorkflowInput {
  const { durations } = config;
  return {
    documentId,
    activityTimeoutMs: durations.activityTimeoutMs,
    heartbeatMs: durations.activityHeartbeatMs,
    retryInitialMs: durations.retryInitialMs,
    retryMaxMs: durations.retryMaxMs,
  };
}

/** Starts the document's workflow, or joins the one already running (business key: the document id). */
export async function startDocumentWorkflow(temporal: TemporalDeps, config: Config, documentId: string): Promise<void> {
  await temporal.client.workflow.start<typeof documentWorkflow>(DOCUMENT_WORKFLOW, {
    workflowId: documentWorkflowId(documentId),
    taskQueue: temporal.taskQueue,
    args: [workflowInput(config, documentId)],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
}

/** Hands a recorded apply to the document's workflow (starting it if needed); the signal is durable. */
export async function signalApply(temporal: TemporalDeps, config: Config, documentId: string, applyId: string): Promise<void> {
  await temporal.client.workflow.signalWithStart<typeof documentWorkflow, [{ applyId: string }]>(DOCUMENT_WORKFLOW, {
    workflowId: documentWorkflowId(documentId),
    taskQueue: temporal.taskQueue,
    args: [workflowInput(config, documentId)],
    signal: applySignal,
    signalArgs: [{ applyId }],
  });
}

/** Tells a running document workflow that the document settled outside it (a decline). */
export async function signalSettled(temporal: TemporalDeps, documentId: string): Promise<void> {
  await temporal.client.workflow.getHandle(documentWorkflowId(documentId)).signal(settledSignal).catch(() => undefined);
}

/** Waits up to `timeoutMs` for an apply to be applied or rejected; pending when it is still in flight. */
export async function waitForApply(db: Db, applyId: string, timeoutMs: number): Promise<ApplyOutcome> {
  return pollUntil(async () => (await applyOutcome(db, applyId))!, (outcome) => outcome.status !== 'pending', timeoutMs);
}

/** Starts an L1 sign request's workflow (business key: the request id). */
export async function startSignRequestWorkflow(temporal: TemporalDeps, config: Config, signRequestId: string): Promise<void> {
  const { durations } = config;
  await temporal.client.workflow.start<typeof signRequestWorkflow>(SIGN_REQUEST_WORKFLOW, {
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
      },
    ],
  });
}

/** The principal's decision, from the app, to the request's workflow. */
export async function signalSignRequest(temporal: TemporalDeps, signRequestId: string, decision: 'confirm' | 'decline', ip?: string): Promise<void> {
  await temporal.client.workflow.getHandle(signRequestWorkflowId(signRequestId)).signal(decision === 'confirm' ? confirmSignal : declineSignal, { ip });
}
