// Making an apply (steps 5–8 of SPEC's procedure) in three steps: load the rows (apply-load.ts), render
// the PDFs outside any transaction (apply-render.ts), commit under row locks, where the checks that can
// have changed since the apply was recorded run once (apply-commit.ts). The checks are apply-check.ts,
// the rows apply-record.ts, the outcome as callers read it apply-outcome.ts, who signs and what the
// signature records (audit line, event) apply-signed.ts.
import { ServiceError } from '../../lib/errors';
import { applies } from '../../lib/metrics';
import { commitApply } from './apply-commit';
import type { ApplyDeps, Progress } from './apply-deps';
import { loadApply } from './apply-load';
import type { ApplyOutcome } from './apply-outcome';
import { rejectApply } from './apply-record';
import { type RenderedApply, renderApply } from './apply-render';

/** How many times an apply renders again because another revision landed during its render. */
const RENDERS = 10;

/** Milliseconds spent per stage of one apply, for the log and the benchmark's timeline. */
function stageClock() {
  const spent: Record<string, number> = {};
  let last = performance.now();
  return {
    spent,
    mark(stage: string) {
      const now = performance.now();
      spent[stage] = Math.round(((spent[stage] ?? 0) + now - last) * 10) / 10;
      last = now;
    },
  };
}

async function pause(ms: number, progress: Progress, log: ApplyDeps['log']): Promise<void> {
  // Said once in the log: a test watches for it to know the apply is in flight on this worker.
  log?.warn('apply paused by a test fault', { ms });
  for (let waited = 0; waited < ms; waited += 200) {
    progress('pausing (a fault injected by a test)');
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, ms - waited)));
  }
}

/**
 * Makes a recorded apply, idempotent by apply id: records pre_sign_hash, stamps the appearance on the
 * signer's widgets and seals; for the last signer it also appends the completion certificate and
 * seals again, so a failure there rejects this apply instead of wedging the document. The revision(s),
 * audit lines and events commit in one transaction, after the checks under its row locks; a revision
 * that landed during the render (another signer's apply) makes it render again on the new one.
 */
export async function applySignature(deps: ApplyDeps, applyId: string, progress: Progress = () => undefined): Promise<ApplyOutcome> {
  // When the activity began (epoch ms, sub-millisecond), to line up with the workflow task's history.
  const startedAt = performance.timeOrigin + performance.now();
  const clock = stageClock();
  for (let attempt = 0; attempt < RENDERS; attempt += 1) {
    const loaded = await loadApply(deps, applyId, progress);
    if ('outcome' in loaded) return loaded.outcome;
    const { plan } = loaded;
    clock.mark('load');
    let rendered: RenderedApply | undefined;
    if (plan.renders) {
      try {
        rendered = await renderApply(deps, plan, { progress, mark: clock.mark });
      } catch (error) {
        // A failure of the PDF step is final for this input: the apply is rejected, not retried; a
        // dependency that is down (the timestamp authority) is retried within the apply's budget.
        if (error instanceof ServiceError && error.code !== 'service_unavailable') return (await rejectApply(deps.db, applyId, error))!;
        throw error;
      }
      if (deps.faults?.applyPauseMs) await pause(deps.faults.applyPauseMs, progress, deps.log);
    }
    progress('committing the revision (database: the document row lock, checks, audit and events)');
    const commit = await commitApply(deps, plan, rendered);
    clock.mark('commit');
    if (commit.kind === 'stale') continue;
    if (commit.ended) applies.inc({ outcome: commit.ended, code: commit.outcome.code ?? '' });
    // started_at and committed_at (epoch ms): when the activity began and when the commit's notice
    // went out, to line up with the workflow task's history and the request's answer.
    deps.log?.debug('apply timings', {
      apply_id: applyId,
      document_id: plan.document.id,
      attempt,
      ms: clock.spent,
      started_at: Math.round(startedAt * 10) / 10,
      committed_at: Math.round((performance.timeOrigin + performance.now()) * 10) / 10,
    });
    if (deps.faults?.applyPauseAfterCommitMs) await pause(deps.faults.applyPauseAfterCommitMs, progress, deps.log);
    return commit.outcome;
  }
  throw new Error(`apply ${applyId}: the document kept changing; giving up for this attempt`);
}
