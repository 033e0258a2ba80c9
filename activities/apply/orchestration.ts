import type { Db } from '../../db/connect';
import type { Apply } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { ApplyWaiter, Workflows } from '../workflows';
import { type ApplyOutcome, applyOutcome } from './apply-outcome';
import { rejectApply } from './apply-record';

/** What handing over an apply and waiting for it work with. */
export interface ApplyHandOverDeps {
  db: Db;
  workflows: Workflows;
}

/**
 * Signals a just-recorded apply to its document's workflow. When Temporal cannot take it, the apply
 * ends rejected (giving back an L2 slot it holds), so nothing is left pending behind a 503.
 */
export async function handOverApply(deps: ApplyHandOverDeps, apply: Apply, waiter?: ApplyWaiter): Promise<void> {
  try {
    await deps.workflows.handOverApply(apply, waiter);
  } catch (error) {
    const reason = error instanceof ServiceError ? error : errors.serviceUnavailable(t('errors.documents.hand_over_failed'));
    await rejectApply(deps.db, apply.id, reason);
    throw error;
  }
}

/**
 * Hands a just-recorded apply to its document's workflow and waits up to SVC_APPLY_WAIT_MS for it to
 * settle. One call carries both: an update-with-start that the workflow answers once the apply
 * committed, made in the workflow task that takes it (no polling, one hand-off). When that call has
 * not answered within half of SVC_TEMPORAL_CALL_TIMEOUT_MS (a worker down, Temporal slow or
 * unreachable), or failed, the durable signal follows: the apply then runs when a worker is back (the
 * signal joins the update when that was taken after all), and when Temporal cannot take the signal
 * either the apply is rejected and the answer is 503, within one and a half call timeouts. After the
 * signal, an update on the same workflow answers the moment the apply commits; when it cannot (out
 * of time, Temporal unreachable, the workflow ended) the outcome is read from the database once,
 * never polled: a still-pending outcome is the 202 `processing` answer. The answer comes by the end
 * of the wait whatever is slow (Temporal, the database): the work goes on after it.
 */
export async function applyAndWait(deps: ApplyHandOverDeps & { config: Pick<Config, 'durations'> }, apply: Apply): Promise<ApplyOutcome> {
  const { applyWaitMs, temporalCallMs } = deps.config.durations;
  const deadline = Date.now() + applyWaitMs;
  return byDeadline(
    (async () => {
      // Most applies settle well within half the Temporal call budget: the update answers them in one
      // hand-off. Its call is bounded by that too, so nothing is left retrying towards Temporal once the
      // request has answered (a retry after the connection closed would throw from its timer); the
      // signal does not wait for the call's own end (its retries overshoot the deadline).
      const handOverBy = Math.min(deadline, Date.now() + temporalCallMs / 2);
      const early = await settledWithin(deps.workflows.applyNow(apply, handOverBy), handOverBy - Date.now());
      if (early.settled) return early.outcome ?? (await applyOutcome(deps.db, apply.id))!;
      // Not answered by then (a worker down, Temporal slow or unreachable), or refused: the durable signal.
      try {
        await handOverApply(deps, apply);
      } catch (error) {
        // The update may have been taken, and the apply made, before Temporal went away (the signal's
        // rejection then changed nothing): what was made is the answer, not the 503.
        const made = await applyOutcome(deps.db, apply.id);
        if (made?.status === 'applied') return made;
        throw error;
      }
      return settledOutcome(deps, apply.document_id, apply.id, deadline);
    })(),
    deadline,
    apply.id,
  );
}

/** What `work` came to within `ms`: its result, or nothing (failed, or not yet: it goes on, its failure ignored). */
async function settledWithin<T>(work: Promise<T>, ms: number): Promise<{ settled: true; outcome: T } | { settled: false }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ settled: false }>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), Math.max(0, ms));
  });
  return Promise.race([
    work.then(
      (outcome) => ({ settled: true as const, outcome }),
      () => ({ settled: false as const }),
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/** Waits up to `waitMs` for an apply already handed over to settle (see applyAndWait); pending when it has not. */
export async function awaitApply(deps: ApplyHandOverDeps, documentId: string, applyId: string, waitMs: number): Promise<ApplyOutcome> {
  const deadline = Date.now() + waitMs;
  // A retry or a join often comes once the apply has settled: the database answers it at once, with no
  // wait on the workflow's update (which a dead worker's sticky queue can hold up for seconds).
  const known = await applyOutcome(deps.db, applyId);
  if (known && known.status !== 'pending') return known;
  return byDeadline(settledOutcome(deps, documentId, applyId, deadline), deadline, applyId);
}

/**
 * What the apply came to once the document's workflow answers the `applySettled` update (itself sent
 * again when it was lost on the way: workflows/client.ts). When the workflow cannot say by the deadline
 * (out of time, Temporal unreachable, the workflow ended) the database is read once: the outcome, or
 * pending (the 202 answer). It is never polled: only the workflow's update waits for the apply.
 */
async function settledOutcome(deps: ApplyHandOverDeps, documentId: string, applyId: string, deadline: number): Promise<ApplyOutcome> {
  await deps.workflows.applySettled(documentId, applyId, deadline).catch(() => undefined);
  return (await applyOutcome(deps.db, applyId))!;
}

/**
 * The outcome `work` finds by the deadline, else the apply's `pending` outcome (the 202 answer)
 * without another read; a failure of `work` after the deadline is the apply's own business (it is
 * rejected, and the rejection reported) and no longer the caller's.
 */
function byDeadline(work: Promise<ApplyOutcome>, deadline: number, applyId: string): Promise<ApplyOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ApplyOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ apply_id: applyId, status: 'pending', document_status: 'sent', all_signed: false }),
      Math.max(0, deadline - Date.now()),
    );
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
