import type { Knex } from 'knex';

const timestamps = (knex: Knex, t: Knex.CreateTableBuilder) => {
  t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
};

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('templates', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('pdf_sha256').notNullable();
    t.integer('page_count').notNullable();
    t.jsonb('roles').notNullable();
    t.jsonb('widgets').notNullable();
    t.text('created_by').notNullable();
    timestamps(knex, t);
    t.index(['tenant_id', 'created_at']);
  });

  await knex.schema.createTable('documents', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('owner_principal_id').notNullable().references('principals.id');
    t.text('created_by_key_id').references('api_keys.id');
    t.text('template_id').references('templates.id');
    t.text('name').notNullable();
    t.text('status').notNullable().defaultTo('draft');
    t.boolean('strict_order').notNullable().defaultTo(false);
    t.jsonb('roles').notNullable();
    t.jsonb('widgets').notNullable();
    t.integer('page_count').notNullable();
    t.text('original_sha256').notNullable();
    t.text('current_sha256').notNullable();
    t.integer('current_revision').notNullable().defaultTo(0);
    timestamps(knex, t);
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('declined_at', { useTz: true });
    t.index(['tenant_id', 'created_at', 'id']);
  });
  await knex.raw(
    `alter table documents add constraint documents_status_check check (status in ('draft', 'sent', 'completed', 'declined', 'voided'))`,
  );

  await knex.schema.createTable('document_signers', (t) => {
    t.text('id').primary();
    t.text('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('role').notNullable();
    t.text('name').notNullable();
    t.text('email').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.timestamp('signed_at', { useTz: true });
    t.timestamp('declined_at', { useTz: true });
    t.text('decline_reason');
    t.text('method');
    t.text('mandate_id');
    t.text('confirmation_level');
    t.text('pre_sign_hash');
    t.text('document_hash');
    timestamps(knex, t);
    t.unique(['document_id', 'position']);
  });
  await knex.raw(
    `alter table document_signers add constraint document_signers_status_check check (status in ('pending', 'signed', 'declined'))`,
  );
  await knex.raw('create index document_signers_email on document_signers (lower(email))');

  // Every sealed PDF a document has had: revision 0 is the original, one per apply, one at completion.
  await knex.schema.createTable('document_revisions', (t) => {
    t.text('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.integer('revision').notNullable();
    t.text('kind').notNullable();
    t.text('sealed_sha256').notNullable();
    t.text('unsealed_sha256').notNullable();
    t.text('apply_id');
    timestamps(knex, t);
    t.primary(['document_id', 'revision']);
  });

  await knex.schema.createTable('applies', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('signer_id').notNullable().references('document_signers.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.jsonb('input').notNullable();
    t.text('signature_sha256');
    t.text('initials_sha256');
    t.text('mandate_id');
    t.text('confirmation_level');
    t.text('api_key_id');
    t.text('error_code');
    t.text('error_message');
    t.text('pre_sign_hash');
    t.text('document_hash');
    t.integer('revision');
    t.text('ip');
    t.text('user_agent');
    timestamps(knex, t);
    t.timestamp('applied_at', { useTz: true });
  });
  // One live apply per signer: a second click or a concurrent mandate apply cannot stamp twice.
  await knex.raw(`create unique index applies_one_live_per_signer on applies (signer_id) where status in ('pending', 'applied')`);

  await knex.schema.createTable('audit_events', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('document_id').references('documents.id').onDelete('CASCADE');
    t.text('actor_type').notNullable();
    t.text('actor_id');
    t.text('action').notNullable();
    t.text('ip');
    t.text('user_agent');
    t.jsonb('data').notNullable().defaultTo('{}');
    timestamps(knex, t);
    t.index(['document_id', 'created_at']);
    t.index(['tenant_id', 'created_at']);
  });

  await knex.schema.createTable('mail_outbox', (t) => {
    t.text('id').primary();
    t.text('tenant_id').references('tenants.id').onDelete('CASCADE');
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.text('purpose').notNullable();
    // Set for mail that retries must not duplicate (an activity may run twice).
    t.text('dedupe_key').unique();
    t.text('status').notNullable().defaultTo('stored');
    t.text('error');
    timestamps(knex, t);
    t.timestamp('sent_at', { useTz: true });
    t.index(['to_address', 'created_at']);
  });

  await knex.schema.createTable('one_time_codes', (t) => {
    t.text('id').primary();
    t.text('purpose').notNullable();
    t.text('subject').notNullable();
    t.text('code_hash').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    timestamps(knex, t);
    t.index(['purpose', 'subject', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'one_time_codes',
    'mail_outbox',
    'audit_events',
    'applies',
    'document_revisions',
    'document_signers',
    'documents',
    'templates',
  ]) {
    await knex.schema.dropTable(table);
  }
}
