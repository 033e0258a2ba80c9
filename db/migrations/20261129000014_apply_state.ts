import type { Knex } from 'knex';

/**
 * Each signer row points at its latest apply, so GET /documents/:id shows whether a signature is
 * being applied, or why it was rejected, in the one query that reads the document and its signers
 * (a join, no second read); a rejection records when it happened.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('applies', (table) => {
    table.timestamp('rejected_at', { useTz: true }).nullable();
  });
  await knex.schema.alterTable('document_signers', (table) => {
    table.text('last_apply_id').nullable();
  });
  await knex.raw(
    `update document_signers s set last_apply_id = (
       select a.id from applies a where a.signer_id = s.id order by a.created_at desc, a.id desc limit 1)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('document_signers', (table) => {
    table.dropColumn('last_apply_id');
  });
  await knex.schema.alterTable('applies', (table) => {
    table.dropColumn('rejected_at');
  });
}
