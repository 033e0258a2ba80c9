import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { BulkActivities } from '../../activities/bulk/activities';
import { activityOptions } from '../activity-options';
import { OperatorView } from '../operator-view';
import type { BulkWorkflowInput } from './shared';

/**
 * One bulk send (`bulk-<id>`): each item's document is made (and sent) by an activity, at most
 * `concurrency` at once; each item's result is committed by its activity with its document, so a
 * resumed or retried item never makes a second one. An item whose activity keeps failing (the
 * database or Temporal away past its retry budget) is recorded as failed; the bulk then completes.
 */
export async function bulkSendWorkflow(input: BulkWorkflowInput): Promise<{ status: 'completed' | 'abandoned' }> {
  const acts = proxyActivities<BulkActivities>(activityOptions(input));
  // Items on the bulk lane's task queue, so they queue behind each other, not ahead of other tenants' work.
  const items = input.itemQueue ? proxyActivities<BulkActivities>({ ...activityOptions(input), taskQueue: input.itemQueue }) : acts;
  const id = input.bulkId;
  const view = new OperatorView('running', 'its row to be committed').answerStatusQuery();
  try {
    await acts.bulkStarted.executeWithOptions({ summary: `wait for ${id} to be committed` }, [id]);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // The POST that started this rolled back: there is nothing to make.
    view.set('abandoned', 'nothing: the bulk send was never committed');
    return { status: 'abandoned' };
  }
  view.set('running', `its ${input.total} documents to be made, ${input.concurrency} at once`);
  let next = 0;
  const lane = async () => {
    while (next < input.total) {
      const index = next;
      next += 1;
      try {
        await items.makeBulkItem.executeWithOptions({ summary: `make item ${index} of ${id}` }, [id, index]);
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        await acts.failBulkItem.executeWithOptions({ summary: `record that item ${index} of ${id} failed` }, [id, index]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, input.total)) }, lane));
  await acts.finishBulk.executeWithOptions({ summary: `mark ${id} completed` }, [id]);
  view.set('completed', 'nothing: every item is made or refused');
  return { status: 'completed' };
}
