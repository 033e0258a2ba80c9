import { WorkflowNotFoundError } from '@temporalio/client';
import type { Offer } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { type TemporalDeps, temporalCall } from '../../lib/temporal';
import { OFFER_WORKFLOW, type OfferWorkflowInput, offerWorkflowId, wakeSignal } from '../../workflows/offer/shared';
import type { offerWorkflow } from '../../workflows/offer/workflow';

/** Starts an offer's workflow (business key: the offer id); called in the offer's own transaction. */
export async function startOfferWorkflow(temporal: TemporalDeps, config: Config, offer: Offer): Promise<void> {
  const { durations } = config;
  await temporalCall(temporal, config, () =>
    temporal.client.workflow.start<typeof offerWorkflow>(OFFER_WORKFLOW, {
      workflowId: offerWorkflowId(offer.id),
      taskQueue: temporal.taskQueue,
      args: [
        {
          offerId: offer.id,
          expiresAtMs: offer.expires_at.getTime(),
          recheckMs: durations.retryMaxMs,
          activityTimeoutMs: durations.activityTimeoutMs,
          heartbeatMs: durations.activityHeartbeatMs,
          retryInitialMs: durations.retryInitialMs,
          retryMaxMs: durations.retryMaxMs,
          activityAttempts: durations.activityAttempts,
        } satisfies OfferWorkflowInput,
      ],
    }),
  );
}

/** Wakes an offer's workflow to read what changed; the database says what happened. An ended workflow has nothing to read. */
export async function wakeOffer(temporal: TemporalDeps, config: Config, offerId: string): Promise<void> {
  try {
    await temporalCall(temporal, config, () => temporal.client.workflow.getHandle(offerWorkflowId(offerId)).signal(wakeSignal));
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
