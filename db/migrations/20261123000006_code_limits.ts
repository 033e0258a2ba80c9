import type { Knex } from 'knex';

/** The table RateLimiterPostgres (rate-limiter-flexible) keeps its counters in, created here rather than by the library at run time. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    // The library's own layout: key, points consumed in the window, window or lock end in epoch milliseconds.
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
    t.index(['expire']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}
