import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('principals', (t) => {
    // The stored signature appearance (a blob): the only image a mandate ever applies.
    t.text('signature_sha256');
    t.text('signature_kind');
    t.timestamp('signature_updated_at', { useTz: true });
  });

  await knex.schema.createTable('app_sessions', (t) => {
    t.text('id').primary();
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('ip');
    t.text('user_agent');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['principal_id']);
  });

  await knex.schema.createTable('mandates', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('confirmation_level').notNullable();
    t.text('mode').notNullable();
    t.timestamp('expires_at', { useTz: true });
    t.text('status').notNullable().defaultTo('pending');
    t.text('consent_version').notNullable();
    t.timestamp('consent_accepted_at', { useTz: true }).notNullable();
    t.text('consent_ip');
    t.timestamp('confirmed_at', { useTz: true });
    t.text('confirmed_ip');
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_ip');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['api_key_id', 'status']);
    t.index(['principal_id']);
  });
  await knex.raw(`alter table mandates add constraint mandates_level_check check (confirmation_level in ('L1', 'L2'))`);
  await knex.raw(`alter table mandates add constraint mandates_mode_check check (mode in ('outbound', 'inbound', 'both'))`);
  await knex.raw(`alter table mandates add constraint mandates_status_check check (status in ('pending', 'active', 'revoked'))`);

  await knex.schema.createTable('mandate_daily_usage', (t) => {
    t.text('mandate_id').notNullable().references('mandates.id').onDelete('CASCADE');
    t.date('day').notNullable();
    t.integer('count').notNullable().defaultTo(0);
    t.primary(['mandate_id', 'day']);
  });

  await knex.schema.createTable('sign_requests', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('signer_id').notNullable().references('document_signers.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.text('mandate_id').notNullable().references('mandates.id').onDelete('CASCADE');
    t.text('reason').notNullable();
    t.text('status').notNullable().defaultTo('open');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('apply_id');
    t.text('error_code');
    t.text('error_message');
    t.timestamp('decided_at', { useTz: true });
    t.text('decided_ip');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['document_id', 'api_key_id']);
  });
  await knex.raw(
    `alter table sign_requests add constraint sign_requests_status_check check (status in ('open', 'confirming', 'applied', 'declined', 'expired', 'failed'))`,
  );
  // SPEC: one open request per document and key; a second is 409 pending_exists.
  await knex.raw(
    `create unique index sign_requests_one_open on sign_requests (document_id, api_key_id) where status in ('open', 'confirming')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_requests');
  await knex.schema.dropTable('mandate_daily_usage');
  await knex.schema.dropTable('mandates');
  await knex.schema.dropTable('app_sessions');
  await knex.schema.alterTable('principals', (t) => {
    t.dropColumn('signature_sha256');
    t.dropColumn('signature_kind');
    t.dropColumn('signature_updated_at');
  });
}
