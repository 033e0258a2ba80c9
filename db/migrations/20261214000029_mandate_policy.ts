import type { Knex } from 'knex';

/**
 * A mandate's policy (issue 40, item 2): the constraints every L2 apply by it is checked against in
 * the apply's transaction (activities/mandates/policy.ts), as JSON; null for a mandate without one.
 * A policy is never edited: a changed one is a new grant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mandates', (t) => {
    t.jsonb('policy').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mandates', (t) => {
    t.dropColumn('policy');
  });
}
