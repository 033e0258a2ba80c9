import { BaseModel } from './base';

export type ActorType = 'signer' | 'principal' | 'agent' | 'operator' | 'system' | 'recipient';

export class AuditEvent extends BaseModel {
  static override tableName = 'audit_events';
  static override jsonAttributes = ['data'];

  declare id: string;
  declare tenant_id: string;
  declare document_id: string | null;
  declare actor_type: ActorType;
  declare actor_id: string | null;
  declare action: string;
  declare ip: string | null;
  declare user_agent: string | null;
  declare data: Record<string, unknown>;
  declare created_at: Date;
}

export class MailMessage extends BaseModel {
  static override tableName = 'mail_outbox';

  declare id: string;
  declare tenant_id: string | null;
  declare to_address: string;
  declare subject: string;
  declare text: string;
  declare purpose: string;
  declare dedupe_key: string | null;
  /** queued: waiting for its workflow; stored: kept in the outbox (no SMTP); sent; failed for good. */
  declare status: 'queued' | 'stored' | 'sent' | 'failed';
  /** The full subject and text, encrypted, while queued; null once delivered or failed. */
  declare sealed: string | null;
  declare document_id: string | null;
  declare signer_id: string | null;
  declare error: string | null;
  declare created_at: Date;
  declare sent_at: Date | null;
}

export class OneTimeCode extends BaseModel {
  static override tableName = 'one_time_codes';

  declare id: string;
  declare purpose: string;
  declare subject: string;
  declare code_hash: string;
  declare attempts: number;
  declare expires_at: Date;
  declare consumed_at: Date | null;
  /** The keyed hash of the mail's one-use link token, and of what binds the link to the browser or session that asked. */
  declare link_hash: string | null;
  declare binding_hash: string | null;
  declare created_at: Date;
}
