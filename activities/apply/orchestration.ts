import { Apply } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { ApplyWaiter, Workflows } from '../workflows';
import type { ApplyDeps } from './apply-deps';
import { type ApplyOutcome, applyOutcome } from './apply-outcome';
import { type NewApply, recordApply, rejectApply } from './apply-record';
import type { SettledApplies } from './settled-notices';

/**
 * What asking for an apply works with: the apply's own deps, the Workflows port, the wait
 * (SVC_APPLY_WAIT_MS), and the commit's notices (settled-notices.ts) where the process hears them.
 */
export type RequestApplyDeps = ApplyDeps & { workflows: Workflows; config: Pick<Config, 'durations'>; settledApplies?: SettledApplies };

/**
 * The apply a caller asks for: one it records now (`recorded` runs once the row is there, before the
 * hand-over: an offer claims it, an L1 request keeps its id), or one an earlier call recorded (a
 * resumed request, a join, a repeated step).
 */
export type ApplyToMake = { record: NewApply; recorded?: (apply: Apply) => Promise<void> } | { applyId: string };

/** How the caller waits for the apply. */
export interface ApplyWait {
  /**
   * A request (the default) waits up to SVC_APPLY_WAIT_MS and rejects an apply it recorded that
   * Temporal could not take, so nothing is left pending behind its 503. A workflow's activity (the L1
   * confirm) waits for nothing, its workflow woken as the `waiter`, and is retried when the hand-over
   * fails: the apply stays pending for the retry to hand over again.
   */
  caller?: 'request' | 'activity';
  /** A wait other than the caller's own (the legacy L1 path waits a second a look). */
  waitMs?: number;
  /** The workflow woken when the apply settles (an offer accepting by L2, an L1 request). */
  waiter?: ApplyWaiter;
}

/**
 * The one entry of the apply for every caller (L2 sign, L1 confirm, offer accept, browser sign):
 * records the apply (or takes up the one an earlier call recorded), hands it to its document's
 * workflow and waits for its outcome in one call of the port (Workflows.apply: an update-with-start
 * with a deadline, the durable hand-over behind it), and answers what the apply came to. Never a
 * poll: an apply already settled is answered from the database at once (a retry or a join often
 * comes then); otherwise a resumed request repeats the same idempotent hand-over and wait. When the
 * workflow cannot say by the deadline the database is read once, and a still-pending apply is the
 * 202 `processing` answer. The answer comes by the end of the wait whatever is slow (Temporal, the
 * database): the work goes on after it. An apply this request recorded that Temporal could not take
 * ends rejected (giving back an L2 slot it holds) and the caller's answer is 503, unless the update
 * took it and it was made before Temporal went away: what was made is the answer.
 */
export async function requestApply(deps: RequestApplyDeps, what: ApplyToMake, how: ApplyWait = {}): Promise<ApplyOutcome> {
  const request = (how.caller ?? 'request') === 'request';
  const waitMs = how.waitMs ?? (request ? deps.config.durations.applyWaitMs : 0);
  let apply: Apply;
  if ('record' in what) {
    apply = await recordApply(deps, what.record);
    await what.recorded?.(apply);
  } else {
    apply = (await Apply.query(deps.db).findById(what.applyId))!;
    if (apply.status !== 'pending') return (await applyOutcome(deps.db, apply.id))!;
  }
  // The wait starts once the apply is recorded (and claimed), as long for a resumed request as for the first.
  const deadline = Date.now() + waitMs;
  // Heard before the hand-over, so a commit that comes before the update's answer is not missed.
  const notice = waitMs > 0 ? deps.settledApplies?.wait(apply.id) : undefined;
  const handOver = deps.workflows.apply(apply, {
    ...(waitMs > 0 ? { deadline } : {}),
    ...(how.waiter ? { waiter: how.waiter } : {}),
  });
  if (waitMs <= 0) {
    await handOver;
    return pendingOutcome(apply.id);
  }
  const handedOver = handOver.then(
    async (outcome) => outcome ?? (await applyOutcome(deps.db, apply.id))!,
    async (error: unknown) => {
      if (!request) throw error;
      // An apply an earlier call recorded was handed over (or rejected) by that call: what it is now is the answer.
      if (!('record' in what)) return (await applyOutcome(deps.db, apply.id))!;
      const reason = error instanceof ServiceError ? error : errors.serviceUnavailable(t('errors.documents.hand_over_failed'));
      const after = await rejectApply(deps.db, apply.id, reason);
      if (after?.status === 'applied') return after;
      throw error;
    },
  );
  // The commit's notice answers as the apply commits; the update, once its workflow task completes.
  // Whichever comes first is the same outcome (the commit's); without a notice, the update's alone.
  if (!notice) return byDeadline(handedOver, deadline, apply.id);
  // It may go on after the answer: the process waits for it before it closes its Temporal connection.
  deps.settledApplies?.track(handedOver);
  return byDeadline(Promise.race([handedOver, notice.settled]), deadline, apply.id).finally(notice.cancel);
}

/** A `pending` outcome made without a read: the wait ran out, or nothing was waited for (the 202 answer). */
function pendingOutcome(applyId: string): ApplyOutcome {
  return { apply_id: applyId, status: 'pending', document_status: 'sent', all_signed: false };
}

/**
 * The outcome `work` finds by the deadline, else the apply's `pending` outcome (the 202 answer)
 * without another read; a failure of `work` after the deadline is the apply's own business (it is
 * rejected, and the rejection reported) and no longer the caller's.
 */
function byDeadline(work: Promise<ApplyOutcome>, deadline: number, applyId: string): Promise<ApplyOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ApplyOutcome>((resolve) => {
    timer = setTimeout(() => resolve(pendingOutcome(applyId)), Math.max(0, deadline - Date.now()));
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
