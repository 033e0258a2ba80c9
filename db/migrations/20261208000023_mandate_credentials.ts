import type { Knex } from 'knex';

/**
 * Mandate credentials (issue 27): granting a mandate issues a signed credential (a compact JWS by the
 * receipt keys) kept on the mandate row, and reserves the mandate an index in a status list (IETF
 * Token Status List). A list row hands out its indexes with a counter under its row lock; a full list
 * is followed by a new one. The bits are not stored: a mandate's bit is 1 once it is revoked, read
 * from the mandate rows when the list is served. Mandates granted before this have no credential.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('status_lists', (t) => {
    t.text('id').primary();
    t.integer('size').notNullable();
    t.integer('next_idx').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('alter table status_lists add constraint status_lists_next_idx_check check (next_idx >= 0 and next_idx <= size)');
  await knex.schema.alterTable('mandates', (t) => {
    t.text('credential_id').nullable().unique();
    t.text('credential_jws').nullable();
    t.text('status_list_id').nullable().references('status_lists.id');
    t.integer('status_idx').nullable();
    t.unique(['status_list_id', 'status_idx']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mandates', (t) => {
    t.dropUnique(['status_list_id', 'status_idx']);
    t.dropColumn('status_idx');
    t.dropColumn('status_list_id');
    t.dropColumn('credential_jws');
    t.dropColumn('credential_id');
  });
  await knex.schema.dropTable('status_lists');
}
