import type { Knex } from 'knex';

/**
 * Revoking a key now revokes its mandates in the same transaction (issue 22), so "in force" is one
 * rule: the mandate row. Keys revoked before that left mandates active: they are revoked here, as of
 * the key's revocation, and such keys lose `documents:sign`. Mandates and keys record how they were
 * revoked (`revoked_via`), so the app can say what happened: in the app, by a mail's stop link, with
 * the key, or by an operator.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mandates', (table) => {
    table.text('revoked_via').nullable();
  });
  await knex.schema.alterTable('api_keys', (table) => {
    table.text('revoked_via').nullable();
  });
  await knex.raw(
    `update mandates m set status = 'revoked', revoked_at = k.revoked_at, revoked_via = 'key'
       from api_keys k
      where k.id = m.api_key_id and k.revoked_at is not null and m.status in ('active', 'pending')`,
  );
  await knex.raw(
    `update api_keys set scopes = scopes - 'documents:sign' where revoked_at is not null and scopes @> '["documents:sign"]'::jsonb`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (table) => {
    table.dropColumn('revoked_via');
  });
  await knex.schema.alterTable('mandates', (table) => {
    table.dropColumn('revoked_via');
  });
}
