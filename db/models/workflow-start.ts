import { BaseModel } from './base';

/** A workflow start recorded with the change that needs it, waiting to be made (activities/workflow-starts.ts). */
export class WorkflowStartRow extends BaseModel {
  static override tableName = 'workflow_starts';
  static override jsonAttributes = ['args'];

  /** The workflow's business key (`document:doc_…`): one row per start however often it is recorded. */
  declare id: string;
  declare kind: string;
  declare tenant_id: string | null;
  declare args: unknown;
  declare attempts: number;
  declare next_attempt_at: Date;
  declare created_at: Date;
}
