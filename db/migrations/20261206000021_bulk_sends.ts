import type { Knex } from 'knex';

/**
 * Bulk sends (POST /v1/documents/bulk): one row per bulk, one per item with its input and, once its
 * document was made or refused, its result. An item's document is made in the same transaction that
 * marks the item `created`, so a retried or resumed item never makes a second document.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bulk_sends', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('api_key_id').notNullable();
    t.text('template_id').notNullable();
    t.text('name').notNullable();
    t.boolean('send').notNullable();
    t.integer('total').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['tenant_id', 'created_at']);
  });
  await knex.raw(`alter table bulk_sends add constraint bulk_sends_status_check check (status in ('running', 'completed'))`);

  await knex.schema.createTable('bulk_send_items', (t) => {
    t.text('bulk_id').notNullable().references('bulk_sends.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    // The item as given (name, signers, strict_order), validated at the POST.
    t.jsonb('input').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.text('document_id');
    t.text('error_code');
    t.text('error_message');
    t.timestamp('started_at', { useTz: true, precision: 3 });
    t.timestamp('finished_at', { useTz: true, precision: 3 });
    t.primary(['bulk_id', 'position']);
  });
  await knex.raw(
    `alter table bulk_send_items add constraint bulk_send_items_status_check check (status in ('pending', 'created', 'failed'))`,
  );
  // One document per item, whatever retried it.
  await knex.raw('create unique index bulk_send_items_document on bulk_send_items (document_id) where document_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bulk_send_items');
  await knex.schema.dropTable('bulk_sends');
}
