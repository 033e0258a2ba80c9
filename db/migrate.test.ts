import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { migrateLatest, migrateRollbackAll, migrationStatus } from './migrate';

const TABLES = [
  'tenants',
  'principals',
  'api_keys',
  'events',
  'templates',
  'documents',
  'document_signers',
  'document_revisions',
  'applies',
  'audit_events',
  'mail_outbox',
  'one_time_codes',
  'app_sessions',
  'mandates',
  'mandate_daily_usage',
  'sign_requests',
  'webhooks',
  'deliveries',
  'delivery_attempts',
  'rate_limits',
  'request_limits',
  'workflow_starts',
];

async function tables(database: TestDatabase): Promise<string[]> {
  const result = await database.db.raw(
    `select table_name from information_schema.tables where table_schema = 'public' and table_name = any(?)`,
    [TABLES],
  );
  return result.rows.map((row: { table_name: string }) => row.table_name).sort();
}

describe('migrations', () => {
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  after(() => database.drop());

  it('go up on an empty database, down completely, and up again', async () => {
    const applied = await migrateLatest(database.db);
    assert.ok(applied.length >= 2);
    assert.deepEqual(await tables(database), [...TABLES].sort());
    assert.deepEqual((await migrationStatus(database.db)).pending, []);

    const rolledBack = await migrateRollbackAll(database.db);
    assert.deepEqual(rolledBack, [...applied].reverse());
    assert.deepEqual(await tables(database), []);
    assert.deepEqual((await migrationStatus(database.db)).applied, []);

    assert.deepEqual(await migrateLatest(database.db), applied);
    assert.deepEqual(await tables(database), [...TABLES].sort());
    assert.deepEqual(await migrateLatest(database.db), [], 'a second latest applies nothing');
  });

  it('keeps no index that another index of its table already serves (every write pays for each one)', async () => {
    await migrateLatest(database.db);
    // A plain index whose columns begin another plain index's (in either direction) serves no plan
    // the longer one cannot; unique and partial indexes say more than their columns and are left out.
    const covered = await database.db.raw(`
      with ix as (
        select i.indrelid::regclass::text as tbl, c.relname as name, i.indisunique as uniq, i.indpred is not null as partial,
          string_to_array(i.indkey::text, ' ') as cols
        from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public')
      select a.name || ' (served by ' || b.name || ')' as index from ix a join ix b on a.tbl = b.tbl and a.name <> b.name
      where not a.uniq and not a.partial and not b.partial and cardinality(a.cols) <= cardinality(b.cols)
        and b.cols[1:cardinality(a.cols)] = a.cols
      order by 1`);
    assert.deepEqual(
      covered.rows.map((row: { index: string }) => row.index),
      [],
    );
  });

  it('enforces what the schema promises: one principal per e-mail in any case, a known plan, one hash per key', async () => {
    const { db } = database;
    await db('tenants').insert({ id: 'ten_a', plan: 'business' });
    await assert.rejects(db('tenants').insert({ id: 'ten_b', plan: 'platinum' }), /tenants_plan_check/);
    await db('principals').insert({ id: 'prn_a', tenant_id: 'ten_a', email: 'ann@x.test', name: 'Ann' });
    await assert.rejects(
      db('principals').insert({ id: 'prn_b', tenant_id: 'ten_a', email: 'ANN@x.test', name: 'Ann' }),
      /principals_email_unique/,
    );
    await db('api_keys').insert({ id: 'key_a', tenant_id: 'ten_a', principal_id: 'prn_a', label: 'a', prefix: 'svc_abcd', key_hash: 'h1' });
    await assert.rejects(
      db('api_keys').insert({ id: 'key_b', tenant_id: 'ten_a', principal_id: 'prn_a', label: 'b', prefix: 'svc_abcd', key_hash: 'h1' }),
      /unique/,
    );
  });
});
