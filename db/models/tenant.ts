import { BaseModel } from './base';

export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export class Tenant extends BaseModel {
  static override tableName = 'tenants';

  declare id: string;
  declare name: string | null;
  declare plan: Plan;
  declare created_at: Date;
  declare updated_at: Date;
}
