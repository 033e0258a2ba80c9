import { confirmUrl } from '../../activities/signing/signing';
import type { Offer } from '../../db/models';
import type { OfferResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** An offer as one of its parties sees it: the direction and contact are theirs. */
export function presentOffer(offer: Offer, viewer: { principalId: string; appUrl: string; secret: Buffer }): OfferResponse {
  const inbound = offer.to_principal_id === viewer.principalId;
  return {
    offer_id: offer.id,
    direction: inbound ? 'inbound' : 'outbound',
    contact_id: inbound ? offer.to_contact_id : offer.from_contact_id,
    document_id: offer.document_id,
    document_name: offer.document_name,
    from_email: offer.from_email,
    to_email: offer.to_email,
    terms: offer.terms,
    pre_sign_hash: offer.pre_sign_hash,
    human_signature_required: offer.human_signature_required,
    expires_at: offer.expires_at.toISOString(),
    status: offer.status,
    processing: Boolean(offer.apply_id) && offer.status !== 'accepted',
    confirm_url:
      offer.status === 'escalated' && offer.sign_request_id ? confirmUrl(viewer.appUrl, viewer.secret, offer.sign_request_id) : null,
    sign_request_id: offer.sign_request_id,
    mandate_id: offer.status === 'accepted' ? offer.mandate_id : null,
    confirmation_level: offer.status === 'accepted' ? offer.confirmation_level : null,
    document_hash: offer.status === 'accepted' ? offer.document_hash : null,
    final_sha256: offer.final_sha256,
    receipt_jws: offer.receipt_jws,
    error: offer.error_code ? { code: offer.error_code, message: offer.error_message } : null,
    created_at: offer.created_at.toISOString(),
    acknowledged_at: iso(offer.acknowledged_at),
    escalated_at: iso(offer.escalated_at),
    accepted_at: iso(offer.accepted_at),
    declined_at: iso(offer.declined_at),
    expired_at: iso(offer.expired_at),
  };
}
