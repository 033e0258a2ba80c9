import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { DocumentActivities } from '../../activities/apply/activities';
import { activityOptions, localActivityOptions } from '../activity-options';
import { OperatorView } from '../operator-view';
import { wakeSignal } from '../wake';
import { type ApplySettled, applySettledUpdate, applySignal, type DocumentWorkflowInput, settledSignal, statusQuery } from './shared';

/**
 * An activity's final failure: a rule's error code as its type (see worker/typed-failures), and its
 * message. A regular activity's failure arrives wrapped in an ActivityFailure; a local activity's
 * (an apply) arrives as the failure itself (an ApplicationFailure, or a TimeoutFailure).
 */
function failureOf(error: ActivityFailure | ApplicationFailure | TimeoutFailure): { type?: string; message?: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? { type: cause.type ?? undefined, message: cause.message } : { message: cause?.message };
}

/** Whether an apply's activity failed for good (its attempts spent, or refused as a rule), as opposed to the workflow itself failing. */
function applyFailed(error: unknown): error is ActivityFailure | ApplicationFailure | TimeoutFailure {
  return error instanceof ActivityFailure || error instanceof ApplicationFailure || error instanceof TimeoutFailure;
}

/**
 * The life of a sent document, one workflow per document id: it invites signers, applies each
 * recorded signature one at a time (so two applies never race; the last one also completes the
 * document with its certificate), and ends when the document is completed or declined. Every
 * activity has a retry budget: an apply that cannot be made ends rejected, and mail work never
 * holds up the applies behind it.
 */
export async function documentWorkflow(input: DocumentWorkflowInput): Promise<{ status: string }> {
  const acts = proxyActivities<DocumentActivities>(activityOptions(input));
  const applying = proxyActivities<DocumentActivities>(activityOptions(input, { maximumAttempts: input.applyAttempts }));
  // An apply runs as a local activity inside the workflow task that takes it (the update's or the
  // signal's): one hand-off through Temporal instead of three. Runs from before this patch replay the
  // activity they scheduled.
  const applyingHere = proxyLocalActivities<DocumentActivities>(localActivityOptions(input, { maximumAttempts: input.applyAttempts }));

  /** Work beside the document's path (mail): a failure is logged, never a reason to stop applying. */
  async function beside(what: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn(`${what} failed; the document goes on`, { documentId: input.documentId, error: error.cause?.message });
    }
  }

  const queued: string[] = [];
  const processed = new Map<string, ApplySettled>();
  let settled = false;
  let status = 'sent';
  /** Set when the loop takes no more applies; an update arriving after it is refused by its validator. */
  let finished = false;
  /** The apply whose activity runs now: out of `queued`, not yet in `processed`. */
  let inFlight: string | undefined;
  const enqueue = (applyId: string) => {
    if (processed.has(applyId) || queued.includes(applyId)) return;
    // An update (or a repeated signal) for the apply being made waits for it; before this patch it
    // queued that apply again and its activity ran a second time (finding it applied: no harm, but
    // twice the work). Executions from before the patch keep the old path when they replay.
    if (applyId === inFlight && patched('apply-in-flight-once')) return;
    queued.push(applyId);
  };
  /** Workflows waiting on an apply (an offer, an L1 request), woken when it settles. */
  const waiters = new Map<string, Set<string>>();
  const wakes: Promise<void>[] = [];
  const wakeWaiters = (applyId: string) => {
    for (const workflowId of waiters.get(applyId) ?? []) {
      // A waiter that already ended has nothing to wait for; it reads the outcome itself at its next look.
      wakes.push(
        getExternalWorkflowHandle(workflowId)
          .signal(wakeSignal)
          .catch((error: unknown) => log.info('an apply waiter could not be woken', { workflowId, error: (error as Error).message })),
      );
    }
    waiters.delete(applyId);
  };
  /**
   * The one way an apply enters the workflow, whichever message carried it (the durable `apply` signal
   * or the `applySettled` update): its waiter is noted, and the apply is queued once (enqueue's guard).
   */
  const takeApply = (applyId: string, waiter?: string) => {
    if (waiter) {
      waiters.set(applyId, (waiters.get(applyId) ?? new Set()).add(waiter));
      if (processed.has(applyId)) wakeWaiters(applyId);
    }
    enqueue(applyId);
  };
  setHandler(applySignal, ({ applyId, waiter }) => takeApply(applyId, waiter));
  setHandler(
    applySettledUpdate,
    async ({ applyId }) => {
      takeApply(applyId);
      await condition(() => processed.has(applyId));
      return processed.get(applyId)!;
    },
    {
      // Refused before it enters the history when the loop below can no longer take it.
      validator: ({ applyId }) => {
        if (typeof applyId !== 'string' || !applyId) throw new Error('applyId is required');
        if (!processed.has(applyId) && finished) throw new Error('the document workflow is finishing');
      },
    },
  );
  /** What the document became outside the workflow (declined …), as the settle signal said. */
  let settledAs: string | undefined;
  setHandler(settledSignal, (how) => {
    settled = true;
    settledAs ??= how?.status;
  });
  const view = new OperatorView(status, 'the send to commit');
  setHandler(statusQuery, () => ({ ...view.status(), status, processed: [...processed.keys()], queued: [...queued] }));

  try {
    // Started once the send committed (activities/workflow-starts.ts), so the first look finds it sent; the
    // retries stay for runs started from inside the send's transaction by earlier releases (their histories replay).
    status = (await acts.documentSent.executeWithOptions({ summary: 'wait for the send to commit' }, [input.documentId])).status;
  } catch (error) {
    if (error instanceof ActivityFailure) {
      view.set('draft', 'nothing: the send never committed');
      return { status: 'draft' };
    }
    throw error;
  }
  /** Mails the signers whose turn it is now (after the send, and after each applied signature). */
  const invite = () =>
    beside('inviting signers', () =>
      acts.inviteSigners.executeWithOptions(
        { summary: 'invite the signers whose turn it is' },
        input.lane ? [input.documentId, input.lane] : [input.documentId],
      ),
    );
  if (status === 'sent') await invite();
  // The document's expiry and reminder schedule: timers between applies. Runs from before this patch
  // had none (their inputs carry no waits), and a document without waits waits as before.
  const waits = input.waits && patched('document-waits') ? input.waits : undefined;
  const reminders = waits?.reminders;
  let remindersSent = 0;
  let nextReminderAt = reminders ? Date.now() + reminders.firstAfterMs : undefined;
  /** The expiry still to come (cleared once it ran, whatever the document was then). */
  let expiresAt = waits?.expiresAtMs;
  /** The next timer: a reminder due, or the expiry (undefined: none). */
  const nextWake = () => {
    const times = [nextReminderAt, expiresAt].filter((time): time is number => time !== undefined);
    return times.length > 0 ? Math.min(...times) : undefined;
  };
  /** The expiry or a reminder whose time came (between applies, so an apply is never cut short). */
  const dueWaits = async () => {
    if (expiresAt !== undefined && Date.now() >= expiresAt) {
      expiresAt = undefined;
      view.set(status, 'the expiry to be recorded');
      status = (await acts.expireDocument.executeWithOptions({ summary: 'expire the document' }, [input.documentId])).status;
      nextReminderAt = undefined;
      return;
    }
    if (reminders && nextReminderAt !== undefined && Date.now() >= nextReminderAt) {
      remindersSent += 1;
      const round = remindersSent;
      await beside('reminding the signers', () =>
        acts.remindSigners.executeWithOptions({ summary: `reminder ${round} of ${reminders.max}` }, [input.documentId, round]),
      );
      // Late (a worker was down): the next one comes a whole interval after this one, never in a burst to catch up.
      nextReminderAt =
        remindersSent < reminders.max ? Math.max(nextReminderAt + reminders.everyMs, Date.now() + reminders.everyMs) : undefined;
    }
  };
  const ready = () => queued.length > 0 || settled || status !== 'sent';
  // Applies queued after the document settled are still processed: each is then rejected, not left pending.
  for (;;) {
    view.set(status, status === 'sent' ? 'a signature to apply (the apply signal)' : 'nothing more: the document left sent');
    const wakeAt = status === 'sent' && !settled ? nextWake() : undefined;
    if (wakeAt === undefined) await condition(ready);
    else if (
      !(await condition(ready, Math.max(1, wakeAt - Date.now()), {
        summary: wakeAt === expiresAt ? 'the expiry of the document' : `reminder ${remindersSent + 1} of ${reminders?.max}`,
      }))
    ) {
      await dueWaits();
      continue;
    }
    const applyId = queued.shift();
    if (!applyId) {
      finished = true;
      break;
    }
    let outcome: Awaited<ReturnType<DocumentActivities['applySignature']>> | undefined;
    inFlight = applyId;
    view.set(status, `apply ${applyId} to be stamped and sealed`);
    try {
      outcome = patched('apply-local')
        ? await applyingHere.applySignature.executeWithOptions({ summary: `stamp and seal apply ${applyId}` }, [applyId])
        : await applying.applySignature.executeWithOptions({ summary: `stamp and seal apply ${applyId}` }, [applyId]);
    } catch (error) {
      if (!applyFailed(error)) throw error;
      outcome = await acts.rejectApply.executeWithOptions({ summary: `reject apply ${applyId}` }, [applyId, failureOf(error)]);
    }
    processed.set(applyId, { applyId, status: outcome?.status ?? null, ...(outcome && patched('apply-outcome') ? { outcome } : {}) });
    inFlight = undefined;
    wakeWaiters(applyId);
    if (!outcome) continue;
    status = outcome.document_status;
    if (outcome.status === 'applied')
      await beside('notifying the principal', () =>
        acts.notifyApplied.executeWithOptions({ summary: `tell the principal of apply ${applyId}` }, [applyId]),
      );
    // A rejection is mailed to whoever signed (histories from before this patch replay without it).
    else if (outcome.status === 'rejected' && patched('notify-rejected'))
      await beside('telling the signer of the rejection', () =>
        acts.notifyRejected.executeWithOptions({ summary: `tell the signer apply ${applyId} was rejected` }, [applyId]),
      );
    if (outcome.all_signed && status === 'sent') {
      view.set(status, 'the completion seal');
      status = (await acts.completeDocument.executeWithOptions({ summary: 'seal the completed document' }, [input.documentId])).status;
    } else if (outcome.status === 'applied' && status === 'sent') await invite();
  }
  // Completion reaches everyone: each signer and the sender's principal get the completed PDF.
  if (status === 'completed' && patched('completion-mail'))
    await beside('mailing the completed copies', () =>
      acts.mailCompletedCopies.executeWithOptions({ summary: 'mail the completed copies' }, [input.documentId]),
    );
  view.set(settled && status === 'sent' ? (settledAs ?? 'settled') : status, 'nothing: the document is final');
  // Update handlers still answering (and wake-ups still on their way) finish before the run ends.
  await condition(allHandlersFinished);
  await Promise.all(wakes);
  return { status: settled ? 'settled' : status };
}
