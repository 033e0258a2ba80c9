import { BaseModel } from './base';

export class Webhook extends BaseModel {
  static override tableName = 'webhooks';
  static override jsonAttributes = ['events'];

  declare id: string;
  declare tenant_id: string;
  declare url: string;
  declare events: string[] | null;
  declare description: string | null;
  declare secret_ciphertext: string;
  declare previous_secret_ciphertext: string | null;
  declare previous_secret_expires_at: Date | null;
  declare created_at: Date;
  declare deleted_at: Date | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export class Delivery extends BaseModel {
  static override tableName = 'deliveries';

  declare id: string;
  declare tenant_id: string;
  declare event_id: string;
  declare target_kind: 'webhook' | 'inbox';
  declare target_id: string;
  declare url: string;
  declare status: DeliveryStatus;
  declare attempts: number;
  declare last_status_code: number | null;
  declare last_error: string | null;
  declare created_at: Date;
  declare workflow_started_at: Date | null;
  declare delivered_at: Date | null;
  declare failed_at: Date | null;
}

export class DeliveryAttempt extends BaseModel {
  static override tableName = 'delivery_attempts';
  static override idColumn = ['delivery_id', 'attempt'];

  declare delivery_id: string;
  declare attempt: number;
  declare started_at: Date;
  declare latency_ms: number;
  declare status_code: number | null;
  declare error: string | null;
}
