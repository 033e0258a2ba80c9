import type { Knex } from 'knex';

/**
 * Every sign-in and mandate-grant code mail also carries a one-use link (issue 37): its token is kept
 * only as a keyed hash, beside the keyed hash of what binds it to the browser or session that asked
 * (a nonce in an HttpOnly cookie, or the app session's id), so the link works only there.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('one_time_codes', (t) => {
    t.text('link_hash');
    t.text('binding_hash');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('one_time_codes', (t) => {
    t.dropColumn('link_hash');
    t.dropColumn('binding_hash');
  });
}
