import type { QueryBuilder } from 'objection';
import { BaseModel } from './base';

/** An L1 sign request's states, declared once. `confirming` is internal (the principal confirmed; the apply runs): the API shows it as `open`. */
export const SIGN_REQUEST_STATUSES = ['open', 'confirming', 'applied', 'declined', 'expired', 'failed'] as const;
export type SignRequestStatus = (typeof SIGN_REQUEST_STATUSES)[number];
/** The states the API shows. */
export const PUBLIC_SIGN_REQUEST_STATUSES = SIGN_REQUEST_STATUSES.filter((status) => status !== 'confirming') as Array<
  Exclude<SignRequestStatus, 'confirming'>
>;

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

  /**
   * The one deadline rule: a request is open until its expires_at (set once, at creation, from
   * SVC_SIGN_REQUEST_TTL_MS); its workflow expires it at that same instant.
   */
  isOpenAt(now: Date = new Date()): boolean {
    return this.status === 'open' && this.expires_at.getTime() > now.getTime();
  }

  /** The same rule as a query: the requests still open at `now`. */
  static whereOpenAt<Q extends QueryBuilder<SignRequest, unknown>>(query: Q, now: Date = new Date()): Q {
    return query.where('sign_requests.status', 'open').where('sign_requests.expires_at', '>', now) as Q;
  }
}
