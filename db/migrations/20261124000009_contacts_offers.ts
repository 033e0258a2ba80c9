import type { Knex } from 'knex';

/**
 * Agent contacts (one row per side of a pair), offers bound to a document's SHA-256, the receipt
 * keys that sign verifiable receipts, and the links between them: an event names the contact whose
 * inbox hears of it; a sign request made by escalating an offer names the offer and the hash its
 * apply must still find.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('contacts', (t) => {
    t.text('id').primary();
    t.uuid('pair_id').notNullable();
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    // outbound: this side invited; inbound: this side was invited.
    t.text('direction').notNullable();
    t.text('counterparty_email').notNullable();
    t.text('counterparty_name').notNullable();
    t.text('counterparty_principal_id').references('principals.id').onDelete('SET NULL');
    t.text('status').notNullable().defaultTo('invited');
    t.text('inbox_url');
    t.text('inbox_secret_ciphertext');
    t.text('created_by_key_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.text('revoked_by');
    t.unique(['pair_id', 'principal_id']);
    t.index(['principal_id', 'created_at']);
  });
  await knex.raw(`alter table contacts add constraint contacts_direction_check check (direction in ('outbound', 'inbound'))`);
  await knex.raw(`alter table contacts add constraint contacts_status_check check (status in ('invited', 'active', 'revoked'))`);
  // One live relationship per principal and counterparty: a second invite while one is open is a conflict.
  await knex.raw(
    `create unique index contacts_one_live on contacts (principal_id, lower(counterparty_email)) where status in ('invited', 'active')`,
  );
  await knex.raw(`create index contacts_invited_email on contacts (lower(counterparty_email)) where status = 'invited'`);

  await knex.schema.createTable('offers', (t) => {
    t.text('id').primary();
    t.uuid('pair_id').notNullable();
    t.text('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('document_name').notNullable();
    t.text('from_tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('from_principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('from_api_key_id').notNullable();
    t.text('from_contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.text('from_email').notNullable();
    t.text('to_tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.text('to_principal_id').notNullable().references('principals.id').onDelete('CASCADE');
    t.text('to_contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
    t.text('to_email').notNullable();
    t.text('terms').notNullable();
    t.text('pre_sign_hash').notNullable();
    t.boolean('human_signature_required').notNullable().defaultTo(false);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.text('status').notNullable().defaultTo('pending');
    // The L2 apply of an accept (in flight while the status is still pending or acknowledged).
    t.text('apply_id');
    t.text('sign_request_id');
    t.text('accepted_by_key_id');
    t.text('mandate_id');
    t.text('confirmation_level');
    t.text('document_hash');
    t.text('final_sha256');
    t.text('receipt_jws');
    t.text('error_code');
    t.text('error_message');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('acknowledged_at', { useTz: true });
    t.timestamp('escalated_at', { useTz: true });
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('declined_at', { useTz: true });
    t.timestamp('expired_at', { useTz: true });
    t.index(['from_principal_id', 'created_at']);
    t.index(['to_principal_id', 'created_at']);
    t.index(['document_id']);
  });
  await knex.raw(
    `alter table offers add constraint offers_status_check check (status in ('pending', 'acknowledged', 'declined', 'accepted', 'escalated', 'expired'))`,
  );

  await knex.schema.createTable('receipt_keys', (t) => {
    t.text('kid').primary();
    t.text('alg').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.text('private_ciphertext').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('retired_at', { useTz: true });
  });
  // At most one key signs new receipts; retired ones stay in the JWKS so old receipts still verify.
  await knex.raw('create unique index receipt_keys_one_active on receipt_keys ((true)) where retired_at is null');

  await knex.schema.alterTable('events', (t) => {
    t.text('contact_id');
  });
  await knex.schema.alterTable('sign_requests', (t) => {
    t.text('offer_id');
    t.text('expected_sha256');
  });
  await knex.schema.alterTable('documents', (t) => {
    t.text('receipt_jws');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.dropColumn('receipt_jws');
  });
  await knex.schema.alterTable('sign_requests', (t) => {
    t.dropColumn('expected_sha256');
    t.dropColumn('offer_id');
  });
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('contact_id');
  });
  await knex.schema.dropTable('receipt_keys');
  await knex.schema.dropTable('offers');
  await knex.schema.dropTable('contacts');
}
