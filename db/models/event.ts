import { BaseModel } from './base';

export class Event extends BaseModel {
  static override tableName = 'events';
  static override jsonAttributes = ['data'];

  declare id: string;
  declare tenant_id: string;
  declare event: string;
  declare data: Record<string, unknown>;
  declare created_at: Date;
  declare dispatched_at: Date | null;
  /** The side of a contact whose inbox_url also hears of this event (contact and offer events). */
  declare contact_id: string | null;
}
