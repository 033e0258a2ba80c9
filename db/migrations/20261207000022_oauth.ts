import type { Knex } from 'knex';

/**
 * OAuth 2.1 (issue 27): the clients (by Client ID Metadata Document, fetched and kept briefly, or
 * registered dynamically), the one-time authorization codes and the rotated refresh tokens, each
 * stored as its SHA-256 only. A connected app is an API-key row of kind `oauth` (its key_hash is the
 * hash of a secret nobody holds), so mandates, limits and the key cache work for it as for a key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('kind').notNullable().defaultTo('key');
    t.text('oauth_client_id').nullable();
  });
  await knex.raw(`alter table api_keys add constraint api_keys_kind_check check (kind in ('key', 'oauth'))`);

  await knex.schema.createTable('oauth_clients', (t) => {
    // The client_id: an https URL (metadata document) or `oac_…` (registered).
    t.text('id').primary();
    t.text('kind').notNullable();
    t.text('client_name').notNullable();
    t.jsonb('redirect_uris').notNullable();
    t.timestamp('fetched_at', { useTz: true, precision: 3 });
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table oauth_clients add constraint oauth_clients_kind_check check (kind in ('metadata', 'registered'))`);

  await knex.schema.createTable('oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.text('client_id').notNullable();
    t.text('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.text('code_challenge').notNullable();
    t.text('resource').notNullable();
    t.jsonb('scopes').notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('used_at', { useTz: true, precision: 3 });
  });

  await knex.schema.createTable('oauth_refresh_tokens', (t) => {
    t.text('token_hash').primary();
    // One authorization's chain of rotated tokens: a reused old one revokes the whole chain.
    t.text('grant_id').notNullable();
    t.text('client_id').notNullable();
    t.text('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.text('resource').notNullable();
    t.jsonb('scopes').notNullable();
    t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('used_at', { useTz: true, precision: 3 });
    t.timestamp('revoked_at', { useTz: true, precision: 3 });
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.index(['grant_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('oauth_refresh_tokens');
  await knex.schema.dropTable('oauth_codes');
  await knex.schema.dropTable('oauth_clients');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('oauth_client_id');
    t.dropColumn('kind');
  });
}
