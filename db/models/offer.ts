import { BaseModel } from './base';

/** An offer's states, declared once: the rules, the API schema and (through the OpenAPI document) the SDK and MCP read them. */
export const OFFER_STATUSES = ['pending', 'acknowledged', 'declined', 'accepted', 'escalated', 'expired'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
/** The states an offer can still leave (ack, accept, escalate, decline, expire). */
export const OFFER_OPEN = ['pending', 'acknowledged', 'escalated'] as const satisfies readonly OfferStatus[];
/** Accepted, declined and expired offers never move again. */
export const OFFER_FINAL = ['accepted', 'declined', 'expired'] as const satisfies readonly OfferStatus[];

/** An offer of a sent document from one principal's agent to a contact's principal, bound to its PDF's SHA-256. */
export class Offer extends BaseModel {
  static override tableName = 'offers';

  declare id: string;
  declare pair_id: string;
  declare document_id: string;
  declare document_name: string;
  declare from_tenant_id: string;
  declare from_principal_id: string;
  declare from_api_key_id: string;
  declare from_contact_id: string;
  declare from_email: string;
  declare to_tenant_id: string;
  declare to_principal_id: string;
  declare to_contact_id: string;
  declare to_email: string;
  declare terms: string;
  declare pre_sign_hash: string;
  declare human_signature_required: boolean;
  declare expires_at: Date;
  declare status: OfferStatus;
  declare apply_id: string | null;
  declare sign_request_id: string | null;
  declare accepted_by_key_id: string | null;
  declare mandate_id: string | null;
  declare confirmation_level: 'l1' | 'l2' | null;
  declare document_hash: string | null;
  declare final_sha256: string | null;
  declare receipt_jws: string | null;
  declare error_code: string | null;
  declare error_message: string | null;
  declare created_at: Date;
  declare acknowledged_at: Date | null;
  declare escalated_at: Date | null;
  declare accepted_at: Date | null;
  declare declined_at: Date | null;
  declare expired_at: Date | null;

  /** Accepted, declined and expired offers never move again. */
  isFinal(): boolean {
    return (OFFER_FINAL as readonly OfferStatus[]).includes(this.status);
  }
}
