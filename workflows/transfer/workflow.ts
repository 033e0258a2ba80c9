import { condition, continueAsNew, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { TransferActivities } from '../../activities/transfers/activities';
import { activityOptions } from '../activity-options';
import { OperatorView } from '../operator-view';
import { TRANSFER_ROUNDS_PER_RUN, type TransferWorkflowInput, wakeSignal } from './shared';

const DONE = new Set(['released', 'cancelled', 'blocked', 'abandoned']);

/**
 * The unlock wait of one offered package (`transfer-<id>`): share packages release at offer; a
 * sign-to-unlock package when its document completes (never if it is declined or voided); an
 * accept-to-unlock package when every recipient accepted. It ends once released, cancelled or blocked.
 */
export async function transferWorkflow(input: TransferWorkflowInput): Promise<{ status: string }> {
  const acts = proxyActivities<TransferActivities>(activityOptions(input));
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const id = input.transferId;
  const view = new OperatorView('offered', 'the first check of what unlocks it').answerStatusQuery();
  const rounds = input.roundsPerRun ?? TRANSFER_ROUNDS_PER_RUN;
  for (let round = 1; ; round += 1) {
    const status = await acts.checkRelease.executeWithOptions({ summary: `release ${id} if what unlocks it holds` }, [id]);
    if (DONE.has(status)) {
      view.set(status, 'nothing: the package is final');
      return { status };
    }
    // Still offered: a document to complete, or recipients to accept (the release's own words).
    view.set('offered', 'its document to complete or its recipients to accept (a wake, or the next look)');
    // A long wait starts afresh with the same input (its first step is the same look), so its history
    // stays short; executions from before this patch replay without it.
    if (round >= rounds && patched('transfer-continue-as-new')) await continueAsNew<typeof transferWorkflow>(input);
    await condition(() => woken, input.recheckMs, { summary: `look again at ${id}` });
    woken = false;
  }
}
