import { BaseModel } from './base';

export type SignRequestStatus = 'open' | 'confirming' | 'applied' | 'declined' | 'expired' | 'failed';

/** An L1 request: the agent asks its principal to confirm an apply in the app. */
export class SignRequest extends BaseModel {
  static override tableName = 'sign_requests';

  declare id: string;
  declare tenant_id: string;
  declare document_id: string;
  declare signer_id: string;
  declare principal_id: string;
  declare api_key_id: string;
  declare mandate_id: string;
  declare reason: string;
  declare status: SignRequestStatus;
  declare expires_at: Date;
  declare apply_id: string | null;
  declare error_code: string | null;
  declare error_message: string | null;
  declare decided_at: Date | null;
  declare decided_ip: string | null;
  /** Set when the request escalates an offer: its apply must still find the offer's pre_sign_hash. */
  declare offer_id: string | null;
  declare expected_sha256: string | null;
  declare created_at: Date;
}
