import { BaseModel } from './base';

export type ConfirmationLevel = 'L1' | 'L2';
export type MandateMode = 'outbound' | 'inbound' | 'both';
export type MandateStatus = 'pending' | 'active' | 'revoked';
/** What a mandate is at a moment: its stored status, or `expired` once an active one is past its expiry. */
export type MandateState = MandateStatus | 'expired';
/** How a mandate or a key was revoked: in the app, by a mail's stop link, with its key, or by an operator. */
export type RevokedVia = 'app' | 'stop-link' | 'key' | 'operator';

/**
 * What an L2 apply by a mandate must keep to (activities/mandates/policy.ts checks it): whom it may
 * sign with (e-mail addresses or domains), what (template ids or exact document hashes), how often
 * (a daily cap under the service's 25; at most `max` per counterparty per period) and when (hours of
 * the day in a time zone). Every field is optional; a mandate without a policy keeps only SPEC's limits.
 */
export interface MandatePolicy {
  counterparties?: string[];
  templates?: string[];
  document_hashes?: string[];
  daily_cap?: number;
  per_counterparty?: { max: number; period: 'day' | 'week' | 'month' };
  hours?: { from: string; to: string; time_zone: string };
}

export class Mandate extends BaseModel {
  static override tableName = 'mandates';
  static override jsonAttributes = ['policy'];

  declare id: string;
  declare tenant_id: string;
  declare principal_id: string;
  declare api_key_id: string;
  declare name: string;
  declare confirmation_level: ConfirmationLevel;
  declare mode: MandateMode;
  declare expires_at: Date | null;
  declare policy: MandatePolicy | null;
  declare status: MandateStatus;
  declare consent_version: string;
  declare consent_accepted_at: Date;
  declare consent_ip: string | null;
  declare confirmed_at: Date | null;
  declare confirmed_ip: string | null;
  declare revoked_at: Date | null;
  declare revoked_ip: string | null;
  declare revoked_via: RevokedVia | null;
  /** The mandate credential (a compact JWS, `jti` = credential_id), issued at the grant; null before issue 27. */
  declare credential_id: string | null;
  declare credential_jws: string | null;
  /** Where its revocation is published: the status list and the index of its bit. */
  declare status_list_id: string | null;
  declare status_idx: number | null;
  declare created_at: Date;

  /**
   * The mandate's state at `now`, SPEC's words: the stored status, except that an active mandate past
   * its expiry is `expired`. The one rule every check, page and answer reads.
   */
  statusAt(now = new Date()): MandateState {
    if (this.status === 'active' && this.expires_at && this.expires_at.getTime() <= now.getTime()) return 'expired';
    return this.status;
  }

  /** In force: active and not past its expiry (statusAt), the only mandate that may apply a mark. */
  isInForce(now = new Date()): boolean {
    return this.statusAt(now) === 'active';
  }
}

/** A Token Status List of `size` entries; a mandate holds a random index of it (unique per list). */
export class StatusList extends BaseModel {
  static override tableName = 'status_lists';

  declare id: string;
  declare size: number;
  declare created_at: Date;
}
