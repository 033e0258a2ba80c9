import type { Knex } from 'knex';

/**
 * A sent document's waits and ends (issue 26): its expiry and reminder schedule as the sender gave
 * them, when it expired or was voided (and why), and per signer when they were last reminded (the
 * rate limit of POST /documents/:id/remind) and the last scheduled round they were mailed in (so a
 * retried reminder activity mails and reports each signer once per round). `expired` joins the states.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (table) => {
    table.timestamp('expires_at', { useTz: true }).nullable();
    table.jsonb('reminders').nullable();
    table.timestamp('expired_at', { useTz: true }).nullable();
    table.timestamp('voided_at', { useTz: true }).nullable();
    table.text('void_reason').nullable();
  });
  await knex.schema.alterTable('document_signers', (table) => {
    table.timestamp('last_reminded_at', { useTz: true }).nullable();
    table.integer('reminder_round').notNullable().defaultTo(0);
  });
  await knex.raw('alter table documents drop constraint documents_status_check');
  await knex.raw(
    `alter table documents add constraint documents_status_check check (status in ('draft', 'sent', 'completed', 'declined', 'voided', 'expired'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table documents drop constraint documents_status_check');
  await knex.raw(
    `alter table documents add constraint documents_status_check check (status in ('draft', 'sent', 'completed', 'declined', 'voided'))`,
  );
  await knex.schema.alterTable('document_signers', (table) => {
    table.dropColumn('reminder_round');
    table.dropColumn('last_reminded_at');
  });
  await knex.schema.alterTable('documents', (table) => {
    table.dropColumn('void_reason');
    table.dropColumn('voided_at');
    table.dropColumn('expired_at');
    table.dropColumn('reminders');
    table.dropColumn('expires_at');
  });
}
