import { BaseModel } from './base';

export class ApiKey extends BaseModel {
  static override tableName = 'api_keys';
  static override jsonAttributes = ['scopes'];

  declare id: string;
  declare tenant_id: string;
  declare principal_id: string;
  declare label: string;
  declare prefix: string;
  declare key_hash: string;
  declare scopes: string[];
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;
  declare created_at: Date;
}
