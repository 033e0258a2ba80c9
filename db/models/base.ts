import type { Knex } from 'knex';
import { Model } from 'objection';
import { assertNotEscaping } from '../transaction-guard';

/** Objection base: snake_case columns as they are; no global knex binding (queries get one passed in). */
export class BaseModel extends Model {
  static override get modelPaths() {
    return [];
  }
}

// A query built on the pool inside an open transaction fails where it is built, its caller in the stack.
const modelQuery = Model.query;
BaseModel.query = function (this: typeof Model, trxOrKnex?: Knex) {
  assertNotEscaping(trxOrKnex);
  return modelQuery.call(this, trxOrKnex);
} as typeof Model.query;
const instanceQuery = Model.prototype.$query;
BaseModel.prototype.$query = function (this: Model, trxOrKnex?: Knex) {
  assertNotEscaping(trxOrKnex);
  return instanceQuery.call(this, trxOrKnex);
} as typeof Model.prototype.$query;
