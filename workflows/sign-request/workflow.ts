import { ActivityFailure, ApplicationFailure, condition, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SignRequestActivities } from '../../activities/mandates/sign-request-activities';
import { confirmSignal, declineSignal, type SignRequestWorkflowInput } from './shared';

/**
 * One L1 sign request: e-mails the principal the confirm link, then waits for their decision in the
 * app or for its lifetime to pass. A signal only wakes the workflow: what happens is what the
 * database records as decided by the principal's session (confirming → the apply procedure runs;
 * declined → nothing is signed). A signal for a request still open changes nothing.
 */
export async function signRequestWorkflow(input: SignRequestWorkflowInput): Promise<{ status: string }> {
  const acts = proxyActivities<SignRequestActivities>({
    startToCloseTimeout: input.activityTimeoutMs,
    heartbeatTimeout: input.heartbeatMs,
    retry: {
      initialInterval: input.retryInitialMs,
      maximumInterval: input.retryMaxMs,
      backoffCoefficient: 2,
      maximumAttempts: input.activityAttempts,
    },
  });
  let woken = false;
  setHandler(confirmSignal, () => {
    woken = true;
  });
  setHandler(declineSignal, () => {
    woken = true;
  });

  const deadline = Date.now() + input.lifetimeMs;
  try {
    await acts.emailSignRequest(input.signRequestId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // The request's transaction never committed: there is nothing to wait for.
    if (error.cause instanceof ApplicationFailure && error.cause.type === 'not_committed') return { status: 'abandoned' };
    log.warn('the confirm mail could not be queued; the request stays open', {
      signRequestId: input.signRequestId,
      error: error.cause?.message,
    });
  }
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0 || !(await condition(() => woken, remaining))) {
      const status = await acts.expireSignRequest(input.signRequestId);
      // A confirmation the app recorded before the deadline is still carried out.
      return { status: status === 'confirming' ? await acts.settleSignRequest(input.signRequestId) : status };
    }
    woken = false;
    const status = await acts.settleSignRequest(input.signRequestId);
    if (status !== 'open') return { status };
  }
}
