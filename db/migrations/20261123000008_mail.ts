import type { Knex } from 'knex';

/**
 * Mail leaves through its own workflow, off the document's path: a queued mail keeps its text
 * sealed (encrypted) until it is delivered, and only a redacted copy in the clear; the document
 * and signer it concerns let the sender see a failed invitation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.text('sealed');
    t.text('document_id');
    t.text('signer_id');
  });
  await knex.raw(
    `alter table mail_outbox add constraint mail_outbox_status_check check (status in ('queued', 'stored', 'sent', 'failed'))`,
  );
  // Mail stored before this migration kept codes and links in the clear: it is redacted now.
  await knex('mail_outbox').update({ text: '(redacted when secrets stopped being stored in the clear)', subject: '(redacted)' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table mail_outbox drop constraint mail_outbox_status_check');
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('signer_id');
    t.dropColumn('document_id');
    t.dropColumn('sealed');
  });
}
