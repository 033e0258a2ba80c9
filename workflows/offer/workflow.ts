import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { OfferActivities } from '../../activities/offers/activities';
import type { OfferStatus } from '../../db/models';
import { activityOptions } from '../activity-options';
import { inWords, OperatorView } from '../operator-view';
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
  const id = input.offerId;
  const view = new OperatorView('pending', 'the counterparty', input.expiresAtMs).answerStatusQuery();
  const final = (status: OfferStatus | 'abandoned') => {
    view.set(status, 'nothing: the offer is final', null);
    return { status };
  };
  let pastDeadline = false;
  for (;;) {
    const remaining = input.expiresAtMs - Date.now();
    await condition(() => woken, pastDeadline ? input.recheckMs : Math.max(remaining, 1), {
      summary: pastDeadline ? `look again at ${id}, kept open by work in flight` : `${inWords(remaining)} expiry of ${id}`,
    });
    woken = false;
    let status = await acts.settleOffer.executeWithOptions({ summary: `settle what happened to ${id}` }, [id]);
    if (FINAL.has(status)) return final(status);
    view.set(status, status === 'escalated' ? 'the principal to confirm in the app' : 'the counterparty');
    if (Date.now() >= input.expiresAtMs) {
      pastDeadline = true;
      status = await acts.expireOffer.executeWithOptions({ summary: `expire ${id}` }, [id]);
      if (FINAL.has(status)) return final(status);
      view.set(status, 'work in flight on the offer to settle');
    }
  }
}
