import type { Knex } from 'knex';

/**
 * Workflow starts recorded in the transaction of the change that needs them (issue 39): made after
 * that transaction committed, by the request or activity that recorded them, and deleted once made;
 * a start Temporal could not take then waits here for the outbox relay's sweep (next_attempt_at).
 * The id is the workflow's business key, so recording the same start twice keeps one row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workflow_starts', (t) => {
    t.text('id').primary();
    t.text('kind').notNullable();
    // Null for a mail of no tenant (a sign-in code).
    t.text('tenant_id');
    // The arguments of the Workflows port's start call (activities/workflow-starts.ts revives its dates).
    t.jsonb('args').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.index(['next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('workflow_starts');
}
