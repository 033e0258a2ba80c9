import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { errors, type ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { DAILY_L2_CAP } from '../mandates/limits';

// The limit is the mandate's (its credential states it); the cap's callers read it here with the count.
export { DAILY_L2_CAP };

export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function secondsToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export function capReached(now = new Date()): ServiceError {
  return errors.rateLimited(t('errors.signing.daily_cap_reached', { cap: DAILY_L2_CAP }), undefined, {
    'Retry-After': String(secondsToNextUtcDay(now)),
  });
}

/**
 * Takes one of the day's 25 L2 applies (or fewer, as the mandate's policy says) in a single conditional upsert, so concurrent calls never pass
 * the cap. Called in the transaction that records the apply: the slot and the apply commit together.
 */
export async function reserveL2(trx: Knex.Transaction, mandateId: string, day: string, cap = DAILY_L2_CAP): Promise<boolean> {
  const result = await trx.raw(
    `insert into mandate_daily_usage (mandate_id, day, count) values (?, ?, 1)
     on conflict (mandate_id, day) do update set count = mandate_daily_usage.count + 1
     where mandate_daily_usage.count < ? returning count`,
    [mandateId, day, cap],
  );
  return result.rows.length > 0;
}

/** Gives a slot back; called in the transaction that rejects the apply holding it, so it happens once. */
export async function releaseL2(trx: Knex.Transaction, mandateId: string, day: string): Promise<void> {
  await trx('mandate_daily_usage').where({ mandate_id: mandateId, day }).where('count', '>', 0).decrement('count', 1);
}

export async function l2AppliesToday(db: Db, mandateId: string, now = new Date()): Promise<number> {
  const row = await db('mandate_daily_usage')
    .where({ mandate_id: mandateId, day: utcDay(now) })
    .first();
  return row ? Number(row.count) : 0;
}
