// How a test sees an apply run inside the document's workflow: an apply is a local activity, so the
// history has a marker per run (not the activity events of a regular activity), recorded by the
// workflow task that ran it, and nothing is pending while it runs but that workflow task.
import type { temporal } from '@temporalio/proto';
import { Apply } from '../db/models';
import { documentWorkflowId } from '../workflows/document/shared';
import type { Stack } from './stack';

type Event = temporal.api.history.v1.IHistoryEvent;

/** One run of a local activity as its marker records it. */
export interface LocalActivityRun {
  /** The attempt that ended the run (1 when it did not retry). */
  attempt: number;
  /** The identity of the worker whose workflow task recorded it (the worker that ran it). */
  identity: string;
  failure?: temporal.api.failure.v1.IFailure | null;
}

/** The runs of `activityType` as local activities in a workflow's history, oldest first. */
export function localActivityRuns(events: Event[], activityType: string): LocalActivityRun[] {
  const identities = new Map<string, string>();
  for (const event of events)
    if (event.workflowTaskCompletedEventAttributes)
      identities.set(String(event.eventId), event.workflowTaskCompletedEventAttributes.identity ?? '');
  const runs: LocalActivityRun[] = [];
  for (const event of events) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') continue;
    const payload = marker.details?.data?.payloads?.[0]?.data;
    if (!payload) continue;
    const data = JSON.parse(Buffer.from(payload).toString('utf8')) as { activity_type?: string; attempt?: number };
    if (data.activity_type !== activityType) continue;
    runs.push({
      attempt: data.attempt ?? 1,
      identity: identities.get(String(marker.workflowTaskCompletedEventId)) ?? '',
      failure: marker.failure,
    });
  }
  return runs;
}

/** The apply runs recorded in a document workflow's history. */
export async function applyRuns(stack: Stack, documentId: string): Promise<LocalActivityRun[]> {
  const history = await stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId)).fetchHistory();
  return localActivityRuns(history.events ?? [], 'applySignature');
}

/**
 * The document's pending apply while the document workflow's task is running: an apply runs inside
 * that task, so this is how a test knows it is being made (undefined before it is recorded, after it
 * settled, or while the workflow waits).
 */
export async function applyRunning(stack: Stack, documentId: string): Promise<Apply | undefined> {
  const apply = await Apply.query(stack.deps.db).where({ document_id: documentId, status: 'pending' }).first();
  if (!apply) return undefined;
  const description = await stack.deps.temporal.client.workflow
    .getHandle(documentWorkflowId(documentId))
    .describe()
    .catch(() => undefined);
  // PENDING_WORKFLOW_TASK_STATE_STARTED
  return description?.raw.pendingWorkflowTask?.state === 2 ? apply : undefined;
}
