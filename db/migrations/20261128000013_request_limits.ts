import type { Knex } from 'knex';

/**
 * The general request limits' counters (lib/request-limits.ts), apart from the code limits' table:
 * this one is written on nearly every request. Unlogged, because a counter lost in a crash costs
 * nothing and skipping the WAL keeps that write cheap (it is not copied to replicas either); room
 * left on each page (fillfactor) lets most updates of a row stay on its page.
 */
export async function up(knex: Knex): Promise<void> {
  // RateLimiterPostgres' own layout: key, points consumed in the window, window end in epoch milliseconds.
  await knex.raw(
    `create unlogged table request_limits (
       key varchar(255) primary key,
       points integer not null default 0,
       expire bigint
     ) with (fillfactor = 70)`,
  );
  await knex.raw('create index request_limits_expire_index on request_limits (expire)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('request_limits');
}
