import { BaseModel } from './base';

export class Principal extends BaseModel {
  static override tableName = 'principals';

  declare id: string;
  declare tenant_id: string;
  declare email: string;
  declare name: string;
  declare signature_sha256: string | null;
  declare signature_kind: 'png' | 'jpeg' | null;
  declare signature_updated_at: Date | null;
  declare created_at: Date;
  declare updated_at: Date;
}
