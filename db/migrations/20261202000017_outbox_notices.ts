import type { Knex } from 'knex';

/** The channel the outbox relay rests on between looks at an idle outbox (activities/webhooks/wake-up.ts). */
export const OUTBOX_CHANNEL = 'outbox';

/**
 * Every statement that adds events announces it on `outbox` (no payload), whichever process or tool
 * wrote it. PostgreSQL delivers the notice when the writer commits, and folds a transaction's
 * identical notices into one, so a transaction of 1,000 events sends one. The relay then looks at
 * once instead of at its next poll; the poll stays, so a notice lost costs one poll interval.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function notify_outbox() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${OUTBOX_CHANNEL}', '');
      return null;
    end $$`);
  await knex.raw('create trigger events_outbox_notice after insert on events for each statement execute function notify_outbox()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger events_outbox_notice on events');
  await knex.raw('drop function notify_outbox()');
}
