import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import knexFactory from 'knex';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { freePort } from '../test/ports';
import { isDatabaseUnavailable, isUniqueViolation } from './errors';
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

describe('isDatabaseUnavailable', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('recognises a refused connection and a session terminated under a query, raw and through Objection, and not a bad query', async () => {
    // Its warnings (one per failed connect) stay out of the test's output.
    const quiet = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };
    const nowhere = knexFactory({
      client: 'pg',
      connection: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
      pool: { min: 0, max: 1 },
      log: quiet,
    });
    const refused = await nowhere.raw('select 1').catch((error) => error);
    const refusedModel = await Principal.query(nowhere)
      .first()
      .catch((error) => error);
    await nowhere.destroy();

    // A session ended by the server mid-query, as a restart (pg_ctl stop -m fast) ends every session.
    const victim = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
    const pid = (await victim.raw('select pg_backend_pid() as pid')).rows[0].pid;
    const sleeping = victim.raw('select pg_sleep(10)').catch((error) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await database.db.raw('select pg_terminate_backend(?)', [pid]);
    const terminated = await sleeping;
    await victim.destroy();

    const badQuery = await database.db.raw('select * from no_such_table').catch((error) => error);
    assert.equal(isDatabaseUnavailable(refused), true, String(refused));
    assert.equal(isDatabaseUnavailable(refusedModel), true, String(refusedModel));
    assert.equal(isDatabaseUnavailable(terminated), true, String(terminated));
    assert.equal(isDatabaseUnavailable(badQuery), false);
    assert.equal(isDatabaseUnavailable(new Error('boom')), false);
    assert.equal(isDatabaseUnavailable(undefined), false);
  });
});
