import type { Knex } from 'knex';

/**
 * Lists page newest first by (created_at, id). Until now they ordered by created_at truncated to the
 * millisecond (a cursor holds a JavaScript Date, which has no microseconds), and no index can serve
 * that expression (date_trunc on timestamptz depends on the time zone): every first page read and
 * sorted the whole list. created_at is kept at millisecond precision instead (timestamptz(3)), so the
 * cursor is exact and each list walks an index in its order: its filter column, created_at, id.
 */
const LISTS: Array<{ table: string; index?: string[] }> = [
  { table: 'documents', index: ['tenant_id'] },
  { table: 'templates', index: ['tenant_id'] },
  { table: 'webhooks', index: ['tenant_id'] },
  { table: 'deliveries', index: ['target_kind', 'target_id'] },
  { table: 'mandates', index: ['api_key_id'] },
  { table: 'sign_requests', index: ['document_id', 'api_key_id'] },
  { table: 'contacts', index: ['principal_id'] },
  { table: 'offers', index: ['from_principal_id'] },
  { table: 'offers', index: ['to_principal_id'] },
  { table: 'drive_files', index: ['principal_id'] },
  { table: 'transfers', index: ['principal_id'] },
];

function indexName(table: string, columns: string[]): string {
  return `${table}_${columns.join('_')}_page`;
}

export async function up(knex: Knex): Promise<void> {
  for (const table of new Set(LISTS.map((list) => list.table)))
    await knex.raw('alter table ?? alter column created_at type timestamptz(3)', [table]);
  for (const { table, index } of LISTS) {
    if (!index) continue;
    const columns = index.map(() => '??').join(', ');
    await knex.raw(`create index ?? on ?? (${columns}, created_at desc, id desc)`, [indexName(table, index), table, ...index]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table, index } of LISTS) if (index) await knex.raw('drop index if exists ??', [indexName(table, index)]);
  for (const table of new Set(LISTS.map((list) => list.table)))
    await knex.raw('alter table ?? alter column created_at type timestamptz', [table]);
}
