import { BaseModel } from './base';
import type { Widget } from './widget';

/** A document's states (DESIGN), declared once: the rules, the API schema and (through the OpenAPI document) the SDK and MCP read them. */
export const DOCUMENT_STATUSES = ['draft', 'sent', 'completed', 'declined', 'voided', 'expired'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** A reminder schedule: the first after `first_after`, then every `every`, `max` in all (ISO 8601 durations). */
export interface DocumentReminders {
  first_after: string;
  every: string;
  max: number;
}

export class Document extends BaseModel {
  static override tableName = 'documents';
  static override jsonAttributes = ['roles', 'widgets', 'reminders'];

  declare id: string;
  declare tenant_id: string;
  declare owner_principal_id: string;
  declare created_by_key_id: string | null;
  declare template_id: string | null;
  /** The Drive file an uploaded-PDF document was made from. */
  declare drive_file_id: string | null;
  declare name: string;
  declare status: DocumentStatus;
  declare strict_order: boolean;
  declare roles: string[];
  declare widgets: Widget[];
  declare page_count: number;
  declare original_sha256: string;
  declare current_sha256: string;
  declare current_revision: number;
  declare created_at: Date;
  declare sent_at: Date | null;
  declare completed_at: Date | null;
  declare declined_at: Date | null;
  /** When a sent document expires unsigned (its workflow's timer); null: never. */
  declare expires_at: Date | null;
  /** The reminder schedule as the sender gave it (ISO 8601 durations); null: no reminders. */
  declare reminders: DocumentReminders | null;
  declare expired_at: Date | null;
  declare voided_at: Date | null;
  declare void_reason: string | null;
  /** The dual-attestation receipt of a completed document: a compact JWS (see lib/receipts.ts). */
  declare receipt_jws: string | null;
  /** Joined where a read takes the document and its signers in one query. */
  declare signers?: DocumentSigner[];

  static override get relationMappings() {
    return {
      signers: {
        relation: BaseModel.HasManyRelation,
        modelClass: DocumentSigner,
        join: { from: 'documents.id', to: 'document_signers.document_id' },
      },
    };
  }
}

export const SIGNER_STATUSES = ['pending', 'signed', 'declined'] as const;
export type SignerStatus = (typeof SIGNER_STATUSES)[number];

export class DocumentSigner extends BaseModel {
  static override tableName = 'document_signers';

  declare id: string;
  declare document_id: string;
  declare tenant_id: string;
  declare position: number;
  declare role: string;
  /** What the sending agent typed: a label. Who signed is signed_name / signed_email. */
  declare name: string;
  declare email: string;
  declare status: SignerStatus;
  declare signed_at: Date | null;
  /** The identity stamped and certified: the principal's registered name and e-mail for their applies. */
  declare signed_name: string | null;
  declare signed_email: string | null;
  declare declined_at: Date | null;
  declare decline_reason: string | null;
  declare method: string | null;
  declare mandate_id: string | null;
  declare confirmation_level: 'l1' | 'l2' | null;
  declare pre_sign_hash: string | null;
  declare document_hash: string | null;
  /** The signer's latest apply (being applied, applied or rejected), set in the transaction that records it. */
  declare last_apply_id: string | null;
  /** When the signer was last reminded (scheduled or POST /remind): the remind rate limit reads it. */
  declare last_reminded_at: Date | null;
  /** The last scheduled reminder round the signer was mailed in (0: none). */
  declare reminder_round: number;
  declare created_at: Date;
  /** Joined where a read shows the state of the signer's latest apply. */
  declare lastApply?: Apply | null;

  static override get relationMappings() {
    return {
      lastApply: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: Apply,
        join: { from: 'document_signers.last_apply_id', to: 'applies.id' },
      },
    };
  }
}

export class DocumentRevision extends BaseModel {
  static override tableName = 'document_revisions';
  static override idColumn = ['document_id', 'revision'];

  declare document_id: string;
  declare revision: number;
  declare kind: 'original' | 'apply' | 'completion';
  declare sealed_sha256: string;
  declare unsealed_sha256: string;
  declare apply_id: string | null;
  declare created_at: Date;
}

export type ApplyKind = 'browser' | 'mandate';
export const APPLY_STATUSES = ['pending', 'applied', 'rejected'] as const;
export type ApplyStatus = (typeof APPLY_STATUSES)[number];

export interface ApplyInput {
  values: Record<string, string | boolean>;
  /** How the appearance was made: drawn, typed, uploaded (browser) or stored (mandate). */
  appearance: 'drawn' | 'typed' | 'uploaded' | 'stored';
  consent_text?: string;
  /** What the agent said it signs for (mandate applies). */
  reason?: string;
  /** An offer's pre_sign_hash: the apply is made only on the PDF the offer was bound to (else document_changed). */
  expected_sha256?: string;
  /** An L2 apply's mandate policy constraints it was checked against and kept to (activities/mandates/policy.ts). */
  policy_checked?: string[];
  /** Editable prefilled values the signer changed (the sender's value, then theirs). */
  prefill_changed?: Array<{ field: string; from: string | boolean; to: string | boolean }>;
}

export class Apply extends BaseModel {
  static override tableName = 'applies';
  static override jsonAttributes = ['input'];

  declare id: string;
  declare tenant_id: string;
  declare document_id: string;
  declare signer_id: string;
  declare kind: ApplyKind;
  declare status: ApplyStatus;
  declare input: ApplyInput;
  declare signature_sha256: string | null;
  declare initials_sha256: string | null;
  declare mandate_id: string | null;
  declare confirmation_level: 'l1' | 'l2' | null;
  declare api_key_id: string | null;
  /** The UTC day whose L2 cap slot this apply holds (L2 applies only). */
  declare cap_day: string | null;
  declare error_code: string | null;
  declare error_message: string | null;
  declare pre_sign_hash: string | null;
  declare document_hash: string | null;
  declare revision: number | null;
  declare ip: string | null;
  declare user_agent: string | null;
  declare created_at: Date;
  declare applied_at: Date | null;
  declare rejected_at: Date | null;
}
