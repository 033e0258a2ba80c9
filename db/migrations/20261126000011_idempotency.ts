import type { Knex } from 'knex';

/**
 * Idempotency keys of POST requests (DESIGN: per API key, kept 24 hours): the first request's
 * fingerprint and, once it answered, its status and body, which a retry with the same key gets back.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.text('key').notNullable();
    // SHA-256 of the method, path, query and body of the first request.
    t.text('fingerprint').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.integer('response_status');
    t.jsonb('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['api_key_id', 'key']);
  });
  await knex.raw(`alter table idempotency_keys add constraint idempotency_keys_status_check check (status in ('running', 'done'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
