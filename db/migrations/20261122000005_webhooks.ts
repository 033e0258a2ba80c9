import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.jsonb('events');
    t.text('description');
    // Signing secrets, encrypted (they must be read again to sign); the previous one overlaps a rotation.
    t.text('secret_ciphertext').notNullable();
    t.text('previous_secret_ciphertext');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['tenant_id']);
  });

  await knex.schema.createTable('deliveries', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('event_id').notNullable().references('events.id').onDelete('CASCADE');
    // Where it goes: a tenant webhook, or (for contact and offer events) a contact's inbox_url.
    t.text('target_kind').notNullable();
    t.text('target_id').notNullable();
    t.text('url').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('workflow_started_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('failed_at', { useTz: true });
    t.unique(['target_kind', 'target_id', 'event_id']);
    t.index(['target_kind', 'target_id', 'created_at']);
  });
  await knex.raw(`alter table deliveries add constraint deliveries_status_check check (status in ('pending', 'delivered', 'failed'))`);
  await knex.raw('create index deliveries_unstarted on deliveries (created_at) where workflow_started_at is null');

  await knex.schema.createTable('delivery_attempts', (t) => {
    t.text('delivery_id').notNullable().references('deliveries.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('latency_ms').notNullable();
    t.integer('status_code');
    t.text('error');
    t.primary(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('delivery_attempts');
  await knex.schema.dropTable('deliveries');
  await knex.schema.dropTable('webhooks');
}
