import { BaseModel } from './base';

/** A contact's states, declared once: the rules, the API schema and (through the OpenAPI document) the SDK and MCP read them. */
export const CONTACT_STATUSES = ['invited', 'active', 'revoked'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];
export type ContactDirection = 'outbound' | 'inbound';

/** One side of an agent contact: both sides share a pair_id and move between states together. */
export class Contact extends BaseModel {
  static override tableName = 'contacts';

  declare id: string;
  declare pair_id: string;
  declare tenant_id: string;
  declare principal_id: string;
  declare direction: ContactDirection;
  declare counterparty_email: string;
  declare counterparty_name: string;
  declare counterparty_principal_id: string | null;
  declare status: ContactStatus;
  declare inbox_url: string | null;
  declare inbox_secret_ciphertext: string | null;
  declare created_by_key_id: string | null;
  declare created_at: Date;
  declare accepted_at: Date | null;
  declare revoked_at: Date | null;
  declare revoked_by: 'self' | 'counterparty' | null;
}
