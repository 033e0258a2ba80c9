import type { Knex } from 'knex';

/**
 * Drive files (a principal's uploads, content-addressed blobs), transfer packages of them, and their
 * recipients with claim tokens kept only as SHA-256.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('drive_files', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('api_key_id');
    t.text('name').notNullable();
    // What the bytes are (sniffed, never taken from the name or the Content-Type): pdf, png, docx, zip …
    t.text('kind').notNullable();
    t.text('media_type').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['principal_id', 'created_at']);
  });

  await knex.schema.createTable('transfers', (t) => {
    t.text('id').primary();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('api_key_id');
    t.text('name').notNullable();
    // share: released at offer; sign: when the linked document completes; accept: when every recipient accepts.
    t.text('mode').notNullable();
    t.text('document_id').references('documents.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('created');
    t.text('blocked_reason');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('offered_at', { useTz: true });
    t.timestamp('released_at', { useTz: true });
    t.timestamp('cancelled_at', { useTz: true });
    t.index(['principal_id', 'created_at']);
    t.index(['document_id']);
  });
  await knex.raw(`alter table transfers add constraint transfers_mode_check check (mode in ('share', 'sign', 'accept'))`);
  await knex.raw(
    `alter table transfers add constraint transfers_status_check check (status in ('created', 'offered', 'released', 'cancelled'))`,
  );

  await knex.schema.createTable('transfer_files', (t) => {
    t.text('transfer_id').notNullable().references('transfers.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('drive_file_id').notNullable().references('drive_files.id');
    t.primary(['transfer_id', 'position']);
    t.index(['drive_file_id']);
  });

  await knex.schema.createTable('transfer_recipients', (t) => {
    t.text('id').primary();
    t.text('transfer_id').notNullable().references('transfers.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('email').notNullable();
    t.text('name').notNullable();
    // SHA-256 of the raw claim token (svcxfer_…), which is shown once, at offer.
    t.text('token_hash').unique();
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('claimed_at', { useTz: true });
    t.text('bound_principal_id').references('principals.id').onDelete('SET NULL');
    t.timestamp('bound_at', { useTz: true });
    t.unique(['transfer_id', 'position']);
  });
  await knex.raw('create index transfer_recipients_email on transfer_recipients (lower(email))');

  // A document made from an uploaded PDF names the Drive file it came from (which cannot be deleted while the document is live).
  await knex.schema.alterTable('documents', (t) => {
    t.text('drive_file_id').references('drive_files.id');
  });
  await knex.raw('create index transfer_recipients_bound on transfer_recipients (bound_principal_id) where bound_principal_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.dropColumn('drive_file_id');
  });
  await knex.schema.dropTable('transfer_recipients');
  await knex.schema.dropTable('transfer_files');
  await knex.schema.dropTable('transfers');
  await knex.schema.dropTable('drive_files');
}
