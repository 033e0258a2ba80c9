import { BaseModel } from './base';

/** A file in a principal's Drive: a content-addressed blob with the name and kind it was uploaded as. */
export class DriveFile extends BaseModel {
  static override tableName = 'drive_files';

  declare id: string;
  declare tenant_id: string;
  declare principal_id: string;
  declare api_key_id: string | null;
  declare name: string;
  declare kind: string;
  declare media_type: string;
  /** bigint: node-postgres answers it as a string. */
  declare size: number | string;
  declare sha256: string;
  declare created_at: Date;
  declare deleted_at: Date | null;
}
