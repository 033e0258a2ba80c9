import { BaseModel } from './base';

/** A bulk send's states, declared once: the rules, the API schema and (through OpenAPI) the SDK read them. */
export const BULK_STATUSES = ['running', 'completed'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];
export const BULK_ITEM_STATUSES = ['pending', 'created', 'failed'] as const;
export type BulkItemStatus = (typeof BULK_ITEM_STATUSES)[number];

export class BulkSend extends BaseModel {
  static override tableName = 'bulk_sends';

  declare id: string;
  declare tenant_id: string;
  declare principal_id: string;
  declare api_key_id: string;
  declare template_id: string;
  declare name: string;
  declare send: boolean;
  declare total: number;
  declare status: BulkStatus;
  declare created_at: Date;
  declare completed_at: Date | null;
}

/** One item's input as given at the POST. */
export interface BulkItemInput {
  name?: string;
  signers: Array<{ name: string; email: string }>;
  strict_order?: boolean;
  /** Fields of the template filled by name, locked (as POST /documents `values`). */
  values?: Record<string, string | number | boolean | { value: string | number | boolean; editable?: boolean }>;
}

export class BulkSendItem extends BaseModel {
  static override tableName = 'bulk_send_items';
  static override idColumn = ['bulk_id', 'position'];
  static override jsonAttributes = ['input'];

  declare bulk_id: string;
  declare position: number;
  declare input: BulkItemInput;
  declare status: BulkItemStatus;
  declare document_id: string | null;
  declare error_code: string | null;
  declare error_message: string | null;
  declare started_at: Date | null;
  declare finished_at: Date | null;
}
