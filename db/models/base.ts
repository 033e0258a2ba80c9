import { Model } from 'objection';

/** Objection base: snake_case columns as they are; no global knex binding (queries get one passed in). */
export class BaseModel extends Model {
  static override get modelPaths() {
    return [];
  }
}
