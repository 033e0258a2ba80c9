import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { OfferActivities } from '../../activities/offers/activities';
import type { OfferStatus } from '../../db/models';
import { activityOptions } from '../activity-options';
import { type OfferWorkflowInput, wakeSignal } from './shared';

/** The offer's final states (OFFER_FINAL of its model; a workflow takes types only from there) and `abandoned`: never committed. */
export const FINAL = new Set<OfferStatus | 'abandoned'>(['accepted', 'declined', 'expired', 'abandoned']);

/**
 * The life of one offer (`offer-<id>`): it waits for the counterparty's agent or principal, settles
 * what they did (an L2 apply in flight, an escalation the principal confirmed or declined in the
 * app), and at expires_at ends an offer nobody accepted as `expired`. Every wait that outlives a
 * request is here; the state itself lives in the database.
 */
export async function offerWorkflow(input: OfferWorkflowInput): Promise<{ status: string }> {
  const acts = proxyActivities<OfferActivities>(activityOptions(input));
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  let pastDeadline = false;
  for (;;) {
    const remaining = input.expiresAtMs - Date.now();
    await condition(() => woken, pastDeadline ? input.recheckMs : Math.max(remaining, 1));
    woken = false;
    let status = await acts.settleOffer(input.offerId);
    if (FINAL.has(status)) return { status };
    if (Date.now() >= input.expiresAtMs) {
      pastDeadline = true;
      status = await acts.expireOffer(input.offerId);
      if (FINAL.has(status)) return { status };
    }
  }
}
