import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { isUniqueViolation } from './errors';
import { Principal } from './models';

describe('isUniqueViolation', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
    await database.db('tenants').insert({ id: 'ten_u', plan: 'business' });
  });
  after(() => database.drop());

  it('recognises a duplicate key from knex and from Objection alike, and nothing else', async () => {
    const row = { id: 'prn_u', tenant_id: 'ten_u', email: 'u@x.test', name: 'U' };
    await database.db('principals').insert(row);
    const fromKnex = await database
      .db('principals')
      .insert({ ...row, id: 'prn_v' })
      .catch((error) => error);
    const fromObjection = await Principal.query(database.db)
      .insert({ ...row, id: 'prn_w' })
      .catch((error) => error);
    const otherError = await database
      .db('principals')
      .insert({ ...row, id: 'prn_x', tenant_id: 'ten_missing', email: 'x@x.test' })
      .catch((error) => error);
    assert.equal(isUniqueViolation(fromKnex), true);
    assert.equal(isUniqueViolation(fromObjection), true);
    assert.equal(isUniqueViolation(otherError), false);
    assert.equal(isUniqueViolation(new Error('boom')), false);
  });
});
