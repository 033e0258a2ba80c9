import type { Knex } from 'knex';

/**
 * Status-list indexes are drawn at random (draft-ietf-oauth-status-list's privacy advice: an index
 * tells nothing about when, or right after whom, a mandate was granted). The unique pair
 * (status_list_id, status_idx) on mandates already refuses a taken index, so the list's counter and
 * the row lock that moved it go: concurrent grants share no lock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table status_lists drop constraint status_lists_next_idx_check');
  await knex.schema.alterTable('status_lists', (t) => {
    t.dropColumn('next_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('status_lists', (t) => {
    t.integer('next_idx').notNullable().defaultTo(0);
  });
  // The counter resumes past every index in use (indexes below it may be free: they stay unused).
  await knex.raw(
    'update status_lists set next_idx = coalesce((select max(status_idx) + 1 from mandates where mandates.status_list_id = status_lists.id), 0)',
  );
  await knex.raw('alter table status_lists add constraint status_lists_next_idx_check check (next_idx >= 0 and next_idx <= size)');
}
