import { BaseModel } from './base';
import type { RevokedVia } from './mandate';
import { Principal } from './principal';
import { Tenant } from './tenant';

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
  /** `key` (a bearer secret of its own) or `oauth` (a connected app: used through its access tokens only). */
  declare kind: 'key' | 'oauth';
  /** A connected app's OAuth client (its client_id). */
  declare oauth_client_id: string | null;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;
  declare revoked_via: RevokedVia | null;
  declare created_at: Date;
  /** Joined by the key lookup (one query for the key, its principal and its tenant). */
  declare principal?: Principal;
  declare tenant?: Tenant;

  static override get relationMappings() {
    return {
      principal: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: Principal,
        join: { from: 'api_keys.principal_id', to: 'principals.id' },
      },
      tenant: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: Tenant,
        join: { from: 'api_keys.tenant_id', to: 'tenants.id' },
      },
    };
  }
}
