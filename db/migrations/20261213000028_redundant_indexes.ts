import type { Knex } from 'knex';

/**
 * Ten indexes that a list's page index (20261127000012_paging: its filter columns, created_at desc,
 * id desc) already serves: each is a prefix of it, or the same columns in the other direction, which
 * a B-tree walks just as well. Every write to their rows paid for them (a delivery, written three
 * times per webhook, kept five indexes up to date; a document two with the same columns), and no plan
 * needs them. The unique and partial indexes stay.
 */
const REDUNDANT: Array<[table: string, columns: string[]]> = [
  ['contacts', ['principal_id', 'created_at']],
  ['deliveries', ['target_kind', 'target_id', 'created_at']],
  ['documents', ['tenant_id', 'created_at', 'id']],
  ['drive_files', ['principal_id', 'created_at']],
  ['offers', ['from_principal_id', 'created_at']],
  ['offers', ['to_principal_id', 'created_at']],
  ['sign_requests', ['document_id', 'api_key_id']],
  ['templates', ['tenant_id', 'created_at']],
  ['transfers', ['principal_id', 'created_at']],
  ['webhooks', ['tenant_id']],
];

/** The name knex gave each when it was made. */
const nameOf = (table: string, columns: string[]) => `${table}_${columns.join('_')}_index`;

export async function up(knex: Knex): Promise<void> {
  for (const [table, columns] of REDUNDANT) await knex.raw('drop index if exists ??', [nameOf(table, columns)]);
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, columns] of REDUNDANT)
    await knex.raw(`create index if not exists ?? on ?? (${columns.map(() => '??').join(', ')})`, [
      nameOf(table, columns),
      table,
      ...columns,
    ]);
}
