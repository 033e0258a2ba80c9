import type { Knex } from 'knex';

/**
 * The outbox: every event is written here in the transaction of the change that caused it, and
 * leaves for webhooks and inboxes from here (dispatched_at is set once delivery work is started).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('event').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('dispatched_at', { useTz: true });
    t.index(['tenant_id', 'created_at']);
  });
  await knex.raw('create index events_undispatched on events (created_at) where dispatched_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('events');
}
