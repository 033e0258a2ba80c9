import type { Knex } from 'knex';

/**
 * Templates made and changed by API and in the app's editor: when one was last changed, and when it
 * was deleted. A deleted template stays (its documents name it) but is no longer listed or usable.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('templates', (t) => {
    t.timestamp('updated_at', { useTz: true }).nullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('templates', (t) => {
    t.dropColumn('deleted_at');
    t.dropColumn('updated_at');
  });
}
