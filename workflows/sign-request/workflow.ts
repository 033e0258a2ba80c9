import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SignRequestActivities } from '../../activities/mandates/sign-request-activities';
import { confirmSignal, declineSignal, type SignRequestWorkflowInput } from './shared';

/**
 * One L1 sign request: e-mails the principal the confirm link, then waits for their decision in
 * the app or for its lifetime to pass. Confirm runs the apply procedure; decline or expiry leave
 * the document unsigned. The first decision wins.
 */
export async function signRequestWorkflow(input: SignRequestWorkflowInput): Promise<{ status: string }> {
  const acts = proxyActivities<SignRequestActivities>({
    startToCloseTimeout: input.activityTimeoutMs,
    heartbeatTimeout: input.heartbeatMs,
    retry: { initialInterval: input.retryInitialMs, maximumInterval: input.retryMaxMs, backoffCoefficient: 2 },
  });
  let decision: { kind: 'confirm' | 'decline'; ip?: string } | undefined;
  setHandler(confirmSignal, ({ ip }) => {
    decision ??= { kind: 'confirm', ip };
  });
  setHandler(declineSignal, ({ ip }) => {
    decision ??= { kind: 'decline', ip };
  });

  await acts.emailSignRequest(input.signRequestId);
  if (!(await condition(() => decision !== undefined, input.lifetimeMs))) {
    const status = await acts.expireSignRequest(input.signRequestId);
    // A confirm that began in the app just before the deadline is still carried out.
    if (status !== 'confirming') return { status };
    await condition(() => decision !== undefined, input.activityTimeoutMs);
  }
  if (decision?.kind === 'confirm') return { status: await acts.confirmSignRequest(input.signRequestId) };
  return { status: await acts.declineSignRequest(input.signRequestId, decision?.ip) };
}
