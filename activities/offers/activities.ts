import { Offer, type OfferStatus, SignRequest } from '../../db/models';
import { applyOutcome } from '../apply/apply-outcome';
import { recordAudit } from '../audit/audit';
import { tellBothSides } from '../offer-parties/parties';
import { type AcceptDeps, finishAccepted, settleAcceptApply } from './accept';
import { markDeclined } from './offers';

/** An escalated offer follows its sign request: applied → accepted, declined → declined; else it waits. */
async function followEscalation(deps: AcceptDeps, offer: Offer): Promise<void> {
  const request = await SignRequest.query(deps.db).findById(offer.sign_request_id!);
  if (!request) return;
  if (request.status === 'applied' && request.apply_id) {
    await finishAccepted(deps, offer.id, request.apply_id);
    return;
  }
  if (request.status === 'declined') {
    await deps.db.transaction((trx) =>
      markDeclined(trx, offer.id, { type: 'principal', id: request.principal_id }, 'the principal declined in the app'),
    );
    return;
  }
  if (request.status === 'expired' || request.status === 'failed') {
    // The confirmation did not happen; the offer stays escalated (the agent may escalate again) with why.
    await Offer.query(deps.db)
      .findById(offer.id)
      .where({ status: 'escalated', sign_request_id: request.id })
      .patch({
        error_code: request.error_code ?? 'expired',
        error_message: request.error_message ?? 'The principal did not confirm within the sign request’s lifetime.',
      });
  }
}

/** The offer workflow's activities; each reads the database and is safe to run twice. */
export function createOfferActivities(deps: AcceptDeps) {
  return {
    /**
     * Settles what happened to the offer since the last look; answers its status ('abandoned' if it
     * never committed). An accept whose apply is still being made is left as it is: the document's
     * workflow wakes the offer's when the apply settles (the accept named the offer as its waiter).
     */
    async settleOffer(offerId: string): Promise<OfferStatus | 'abandoned'> {
      const offer = await Offer.query(deps.db).findById(offerId);
      if (!offer) return 'abandoned';
      if (offer.isFinal()) return offer.status;
      if (offer.apply_id) {
        const outcome = (await applyOutcome(deps.db, offer.apply_id))!;
        return outcome.status === 'pending' ? offer.status : (await settleAcceptApply(deps, offerId, outcome)).status;
      }
      if (offer.status === 'escalated' && offer.sign_request_id) await followEscalation(deps, offer);
      return (await Offer.query(deps.db).findById(offerId))!.status;
    },

    /**
     * expires_at passed: an offer nobody accepted ends `expired` (and the sign request of its
     * escalation with it, so its link no longer signs). One with work in flight (an apply, a
     * confirmation already given) is left to finish and looked at again.
     */
    async expireOffer(offerId: string): Promise<OfferStatus | 'abandoned'> {
      return deps.db.transaction(async (trx) => {
        const offer = await Offer.query(trx).findById(offerId).forUpdate();
        if (!offer) return 'abandoned';
        if (offer.isFinal() || offer.apply_id || offer.expires_at.getTime() > Date.now()) return offer.status;
        const request = offer.sign_request_id ? await SignRequest.query(trx).findById(offer.sign_request_id).forUpdate() : undefined;
        if (request?.status === 'confirming' || request?.status === 'applied') return offer.status;
        if (request?.status === 'open') {
          await request.$query(trx).patch({ status: 'expired', decided_at: new Date() });
          await recordAudit(trx, {
            tenantId: request.tenant_id,
            documentId: request.document_id,
            actor: { type: 'system' },
            action: 'sign_request.expired',
            data: { sign_request_id: request.id, offer_id: offer.id },
          });
        }
        const expired = await offer.$query(trx).patchAndFetch({ status: 'expired', expired_at: new Date() });
        await tellBothSides(trx, expired, 'offer.expired', {}, { type: 'system' });
        return 'expired';
      });
    },
  };
}
export type OfferActivities = ReturnType<typeof createOfferActivities>;
