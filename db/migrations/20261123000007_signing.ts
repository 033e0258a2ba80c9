import type { Knex } from 'knex';

/**
 * What a principal's apply stamps is their registered identity, kept on the signer row beside the
 * label the agent typed; an L2 apply remembers the UTC day whose cap slot it holds, so a rejection
 * gives back exactly that slot.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('document_signers', (t) => {
    t.text('signed_name');
    t.text('signed_email');
  });
  await knex.schema.alterTable('applies', (t) => {
    t.text('cap_day');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('applies', (t) => {
    t.dropColumn('cap_day');
  });
  await knex.schema.alterTable('document_signers', (t) => {
    t.dropColumn('signed_email');
    t.dropColumn('signed_name');
  });
}
