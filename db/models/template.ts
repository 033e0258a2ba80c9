import { BaseModel } from './base';
import type { Widget } from './widget';

export class Template extends BaseModel {
  static override tableName = 'templates';
  static override jsonAttributes = ['roles', 'widgets'];

  declare id: string;
  declare tenant_id: string;
  declare name: string;
  declare pdf_sha256: string;
  declare page_count: number;
  declare roles: string[];
  declare widgets: Widget[];
  declare created_by: string;
  declare created_at: Date;
  declare updated_at: Date | null;
  /** Set when deleted: no longer listed or usable for new documents, still readable by id. */
  declare deleted_at: Date | null;
}
