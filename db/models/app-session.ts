import { BaseModel } from './base';

/** A principal's signed-in session in the app. */
export class AppSession extends BaseModel {
  static override tableName = 'app_sessions';

  declare id: string;
  declare principal_id: string;
  declare ip: string | null;
  declare user_agent: string | null;
  declare created_at: Date;
  declare expires_at: Date;
  declare revoked_at: Date | null;
}
