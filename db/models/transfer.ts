import { BaseModel } from './base';

export type TransferMode = 'share' | 'sign' | 'accept';
/** A transfer's states, declared once: the rules, the API schema and (through the OpenAPI document) the SDK and MCP read them. */
export const TRANSFER_STATUSES = ['created', 'offered', 'released', 'cancelled'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export class Transfer extends BaseModel {
  static override tableName = 'transfers';

  declare id: string;
  declare tenant_id: string;
  declare principal_id: string;
  declare api_key_id: string | null;
  declare name: string;
  declare mode: TransferMode;
  declare document_id: string | null;
  declare status: TransferStatus;
  declare blocked_reason: string | null;
  declare created_at: Date;
  declare offered_at: Date | null;
  declare released_at: Date | null;
  declare cancelled_at: Date | null;
}

export class TransferFile extends BaseModel {
  static override tableName = 'transfer_files';
  static override idColumn = ['transfer_id', 'position'];

  declare transfer_id: string;
  declare position: number;
  declare drive_file_id: string;
}

export class TransferRecipient extends BaseModel {
  static override tableName = 'transfer_recipients';

  declare id: string;
  declare transfer_id: string;
  declare position: number;
  declare email: string;
  declare name: string;
  declare token_hash: string | null;
  declare accepted_at: Date | null;
  declare claimed_at: Date | null;
  declare bound_principal_id: string | null;
  declare bound_at: Date | null;
}
