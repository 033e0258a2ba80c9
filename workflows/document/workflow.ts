import { ActivityFailure, ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DocumentActivities } from '../../activities/documents/activities';
import { applySignal, settledSignal, statusQuery, type DocumentWorkflowInput } from './shared';

/**
 * The life of a sent document, one workflow per document id: it invites signers, applies each
 * recorded signature one at a time (so two applies never race), and completes the document with
 * its certificate when every signer has signed. It ends when the document is completed or declined.
 */
export async function documentWorkflow(input: DocumentWorkflowInput): Promise<{ status: string }> {
  const retry = { initialInterval: input.retryInitialMs, maximumInterval: input.retryMaxMs, backoffCoefficient: 2 };
  const acts = proxyActivities<DocumentActivities>({
    startToCloseTimeout: input.activityTimeoutMs,
    heartbeatTimeout: input.heartbeatMs,
    retry: { ...retry, nonRetryableErrorTypes: ['not_found'] },
  });
  // The send transaction may commit a moment after this workflow starts; a draft is retried, not final.
  const waitForSent = proxyActivities<DocumentActivities>({ startToCloseTimeout: input.activityTimeoutMs, retry: { ...retry, maximumAttempts: 10 } });

  const queued: string[] = [];
  const processed = new Set<string>();
  let settled = false;
  let status = 'sent';
  setHandler(applySignal, ({ applyId }) => {
    if (!processed.has(applyId) && !queued.includes(applyId)) queued.push(applyId);
  });
  setHandler(settledSignal, () => {
    settled = true;
  });
  setHandler(statusQuery, () => ({ status, processed: [...processed], queued: [...queued] }));

  try {
    status = (await waitForSent.documentSent(input.documentId)).status;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return { status: 'draft' };
    throw error;
  }
  if (status === 'sent') await acts.inviteSigners(input.documentId);
  // Applies queued after the document settled are still processed: each is then rejected, not left pending.
  for (;;) {
    await condition(() => queued.length > 0 || settled || status !== 'sent');
    const applyId = queued.shift();
    if (!applyId) break;
    const outcome = await acts.applySignature(applyId);
    processed.add(applyId);
    status = outcome.document_status;
    if (outcome.status === 'applied') await acts.notifyApplied(applyId);
    if (outcome.all_signed && status === 'sent') status = (await acts.completeDocument(input.documentId)).status;
    else if (outcome.status === 'applied' && status === 'sent') await acts.inviteSigners(input.documentId);
  }
  return { status: settled ? 'settled' : status };
}
