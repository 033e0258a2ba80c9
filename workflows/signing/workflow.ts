import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { SignRequestActivities } from '../../activities/signing/sign-request-activities';
import { activityOptions } from '../activity-options';
import { inWords, OperatorView } from '../operator-view';
import { confirmSignal, declineSignal, type SignRequestWorkflowInput, signRequestSettledUpdate, wakeSignal } from './shared';

/**
 * One L1 sign request: e-mails the principal the confirm link, then waits for their decision in the
 * app or for its lifetime to pass. A signal only wakes the workflow: what happens is what the
 * database records as decided by the principal's session (confirming → the apply procedure runs;
 * declined → nothing is signed). A signal for a request still open changes nothing.
 *
 * A confirmed request's apply is handed to the document's workflow, which wakes this one when it
 * settles (the `wake` signal): the wait is here, in the history, not in an activity polling the
 * database. The app's confirm page waits on the `settled` update for the outcome.
 */
export async function signRequestWorkflow(input: SignRequestWorkflowInput): Promise<{ status: string }> {
  const acts = proxyActivities<SignRequestActivities>(activityOptions(input));
  let woken = false;
  setHandler(confirmSignal, () => {
    woken = true;
  });
  setHandler(declineSignal, () => {
    woken = true;
  });
  setHandler(wakeSignal, () => {
    woken = true;
  });
  /** Set once the request reached its final status; the `settled` update answers it. */
  let final: string | undefined;
  setHandler(signRequestSettledUpdate, async () => {
    await condition(() => final !== undefined);
    return final!;
  });
  const deadline = input.expiresAtMs ?? Date.now() + input.lifetimeMs;
  const id = input.signRequestId;
  const view = new OperatorView('open', 'the confirm mail to be queued', deadline).answerStatusQuery();
  const finish = async (status: string) => {
    view.set(status, 'nothing: the request is final', null);
    final = status;
    await condition(allHandlersFinished);
    return { status };
  };
  // Histories from before this patch carried out a confirmation in one activity that waited for the apply.
  const coordinated = patched('apply-wait-in-workflow');
  /** Carries out what the database records; a confirmation waits here for its apply to settle. */
  const settle = async (): Promise<string> => {
    if (!coordinated) return acts.settleSignRequest(id);
    for (;;) {
      woken = false;
      const status = await acts.stepSignRequest.executeWithOptions({ summary: `carry out the decision on ${id}` }, [id]);
      if (status !== 'confirming') return status;
      view.set('confirming', 'its apply to settle (the document workflow wakes it)');
      // Woken by the document's workflow when the apply settles; looked at again now and then should that wake-up be lost.
      await condition(() => woken, input.retryMaxMs, { summary: `look again at the apply of ${id}` });
    }
  };

  try {
    await acts.emailSignRequest.executeWithOptions({ summary: `queue the confirm mail of ${id}` }, [id]);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // The request's transaction never committed: there is nothing to wait for.
    if (error.cause instanceof ApplicationFailure && error.cause.type === 'not_committed') return finish('abandoned');
    log.warn('the confirm mail could not be queued; the request stays open', {
      signRequestId: input.signRequestId,
      error: error.cause?.message,
    });
  }
  for (;;) {
    const remaining = deadline - Date.now();
    view.set('open', 'the principal to confirm or decline in the app');
    if (remaining <= 0 || !(await condition(() => woken, remaining, { summary: `${inWords(remaining)} expiry of ${id}` }))) {
      view.set('open', 'the expiry to be recorded');
      const status = await acts.expireSignRequest.executeWithOptions({ summary: `expire ${id}` }, [id]);
      // A confirmation the app recorded before the deadline is still carried out.
      return finish(status === 'confirming' ? await settle() : status);
    }
    if (!coordinated) woken = false;
    const status = await settle();
    if (status !== 'open') return finish(status);
  }
}
