import { BaseModel } from './base';

/** A key that signs verifiable receipts (ES256); retired keys stay published so old receipts verify. */
export class ReceiptKey extends BaseModel {
  static override tableName = 'receipt_keys';
  static override idColumn = 'kid';
  static override jsonAttributes = ['public_jwk'];

  declare kid: string;
  declare alg: string;
  declare public_jwk: Record<string, unknown>;
  declare private_ciphertext: string;
  declare created_at: Date;
  declare retired_at: Date | null;
}
