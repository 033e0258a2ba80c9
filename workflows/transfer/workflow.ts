import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { TransferActivities } from '../../activities/transfers/activities';
import { activityOptions } from '../activity-options';
import { type TransferWorkflowInput, wakeSignal } from './shared';

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
  for (;;) {
    const status = await acts.checkRelease(input.transferId);
    if (DONE.has(status)) return { status };
    await condition(() => woken, input.recheckMs);
    woken = false;
  }
}
