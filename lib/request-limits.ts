import { isIP } from 'node:net';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/connect';
import type { Logger } from './log';

/** The general request limits (docs/configuration.md: SVC_RATE_LIMIT_*); a count of 0 turns that limit off. */
export interface RequestLimitSettings {
  /** Requests per window with one API key. */
  perKey: number;
  /** Requests per window from one client address, for every request without a valid key. */
  perIp: number;
  windowMs: number;
  /** How often counts kept in memory are written to the shared rows (DEFAULT_SYNC_MS unless given). */
  syncMs?: number;
}

/** Which limit a count is kept under: the name a refusal gives in its `details`. */
export type RequestLimitName = 'requests_per_key' | 'requests_per_address';

/** One counter after this request was counted: what the X-RateLimit-* headers and a refusal say. */
export interface RequestCount {
  name: RequestLimitName;
  limit: number;
  remaining: number;
  /** Milliseconds until the window ends and the counter starts again. */
  resetMs: number;
  allowed: boolean;
}

/** A count answered from memory, or a promise of one counted on the shared row. */
export type Counted = RequestCount | undefined | Promise<RequestCount | undefined>;

export interface RequestLimits {
  readonly settings: RequestLimitSettings;
  /**
   * Counts a request made with this API key (its id, never the key); undefined while the limit is off.
   * Answered at once when counted in memory (the usual request), a promise when it goes to the row.
   */
  countKey(apiKeyId: string): Counted;
  /** Counts a request from this client address; undefined while the limit is off. As countKey. */
  countAddress(ip: string): Counted;
}

/** Shared by every API process: the counters are rows in the project's database (DESIGN: reliability). */
const TABLE = 'request_limits';
/** While the database does not answer, a warning at most this often. */
const WARN_EVERY_MS = 60_000;

/**
 * The counter of an IPv6 client is its /64, the block one subscriber is usually given: counting
 * single addresses would let one client use 2^64 of them. IPv4 (mapped ones too) counts per address.
 */
export function addressKey(ip: string): string {
  const address = ip.replace(/%.*$/, '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const version = isIP(address);
  // Behind a trusted proxy the address is a header's text: anything but an address shares one counter.
  if (version === 0) return 'unknown';
  if (version === 4) return address;
  const halves = address.toLowerCase().split('::');
  const left = halves[0] ? halves[0].split(':') : [];
  const right = halves[1] ? halves[1].split(':') : [];
  const groups = halves.length === 2 ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

type Counter = (subject: string) => RequestCount | Promise<RequestCount>;

/** Whether `db.destroy()` has run (knex drops its pool then): nothing is written any more, and nothing is wrong. */
function poolClosed(db: Db): boolean {
  return !(db.client as { pool?: unknown }).pool;
}

/** How often counts kept in memory are written to the shared rows (SVC_RATE_LIMIT_SYNC_MS's default). */
export const DEFAULT_SYNC_MS = 1_000;
/** Expired rows are deleted at most this often (by whichever process writes then). */
const SWEEP_EVERY_MS = 5 * 60_000;

/** What this process knows of one subject's window. */
interface Held {
  /** The points the shared row held when last read (this process's written counts included). */
  shared: number;
  /** Counted here since, not written yet. */
  pending: number;
  endsAt: number;
}

/**
 * One limit over the shared rows (`<name>:<subject>`, points in the window, window end in epoch
 * milliseconds: rate-limiter-flexible's layout). A subject's first request of a window in this
 * process reads and counts its row; after that the process counts in memory and writes what it
 * counted every `syncMs` in one statement, which also brings back what the other processes counted.
 * The last tenth of the limit (at least 10) is counted on the row itself, request by request, so one
 * process refuses exactly at the limit. Across processes the limit holds to within one
 * reconciliation: each process may admit, from a view at most `syncMs` old, what it believes is left
 * before that last tenth (docs/decisions/0019-performance.md).
 */
function counter(db: Db, log: Logger, name: RequestLimitName, limit: number, windowMs: number, syncMs: number): Counter {
  const margin = Math.max(10, Math.ceil(limit / 10));
  // Counts in this process while the database does not answer: a limit per process beats none, and an outage of the counters must not fail requests.
  const local = new RateLimiterMemory({ keyPrefix: name, points: limit, duration: windowMs / 1000 });
  const held = new Map<string, Held>();
  let armed = false;
  let sweptAt = Date.now();
  let warnedAt = 0;
  const warn = (error: unknown) => {
    if (Date.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = Date.now();
    log.warn('rate limit counters unreachable in the database; counting in this process meanwhile', { limit: name, error });
  };
  const answer = (points: number, endsAt: number, allowed: boolean): RequestCount => ({
    name,
    limit,
    remaining: allowed ? Math.max(0, limit - points) : 0,
    resetMs: Math.max(0, endsAt - Date.now()),
    allowed,
  });

  /** Adds points to rows (a row whose window ended starts a new one); answers what each holds now, and keeps it. */
  const write = async (counts: Array<[string, number]>): Promise<Map<string, { points: number; endsAt: number }>> => {
    const now = Date.now();
    const { rows } = await db.raw(
      `insert into "${TABLE}" (key, points, expire) values ${counts.map(() => '(?, ?::int, ?::bigint)').join(', ')}
       on conflict (key) do update set
         points = case when ${TABLE}.expire <= ? then excluded.points else ${TABLE}.points + excluded.points end,
         expire = case when ${TABLE}.expire <= ? then excluded.expire else ${TABLE}.expire end
       returning key, points, expire`,
      [...counts.flatMap(([subject, points]) => [`${name}:${subject}`, points, now + windowMs]), now, now],
    );
    const read = new Map<string, { points: number; endsAt: number }>();
    for (const row of rows as Array<{ key: string; points: number; expire: number | bigint | string }>) {
      const subject = row.key.slice(name.length + 1);
      const endsAt = Number(row.expire);
      const known = held.get(subject);
      // Answers may arrive out of order: within one window the larger count is the later one.
      if (known && known.endsAt === endsAt) known.shared = Math.max(known.shared, row.points);
      else held.set(subject, { shared: row.points, pending: 0, endsAt });
      read.set(subject, { points: row.points, endsAt });
    }
    return read;
  };

  const reconcile = async () => {
    armed = false;
    const now = Date.now();
    const counts: Array<[string, number]> = [];
    for (const [subject, entry] of held) {
      if (entry.endsAt <= now) held.delete(subject);
      else if (entry.pending > 0) {
        counts.push([subject, entry.pending]);
        entry.pending = 0;
      }
    }
    if (counts.length === 0) return;
    try {
      await write(counts);
      if (now - sweptAt >= SWEEP_EVERY_MS) {
        sweptAt = now;
        await db.raw(`delete from ${TABLE} where expire < ?`, [now]);
      }
    } catch (error) {
      // The pool is closed: the process is stopping, and the counts of its last moment go with it.
      if (poolClosed(db)) return;
      warn(error);
      // Kept for the next reconciliation, unless their window ended meanwhile.
      for (const [subject, points] of counts) {
        const entry = held.get(subject);
        if (entry) entry.pending += points;
      }
      arm();
    }
  };
  const arm = () => {
    if (armed) return;
    armed = true;
    setTimeout(() => void reconcile(), syncMs).unref();
  };

  /** Counts this request (and what was pending) on the row itself. */
  const countOnRow = async (subject: string): Promise<RequestCount> => {
    const entry = held.get(subject);
    const pending = entry?.pending ?? 0;
    if (entry) entry.pending = 0;
    try {
      const row = (await write([[subject, pending + 1]])).get(subject)!;
      return answer(row.points, row.endsAt, row.points <= limit);
    } catch (error) {
      if (entry) entry.pending += pending;
      throw error;
    }
  };

  /** Counted on the row (memory could not answer), or in this process while the database does not answer. */
  const countShared = async (subject: string, now: number): Promise<RequestCount> => {
    try {
      return await countOnRow(subject);
    } catch (error) {
      warn(error);
      try {
        const outcome = await local.consume(subject);
        return answer(limit - outcome.remainingPoints, now + outcome.msBeforeNext, true);
      } catch (outcome) {
        if (outcome instanceof RateLimiterRes) return answer(limit, now + outcome.msBeforeNext, false);
        throw outcome;
      }
    }
  };

  // Not async: a count memory answers (the usual request) costs no promise.
  return (subject) => {
    const now = Date.now();
    if (held.size > 10_000) for (const [key, known] of held) if (known.endsAt <= now && known.pending === 0) held.delete(key);
    const entry = held.get(subject);
    if (entry && entry.endsAt > now) {
      const counted = entry.shared + entry.pending;
      // Refused from memory until the window ends: the row holds at least this much.
      if (counted >= limit) return answer(counted, entry.endsAt, false);
      if (counted + 1 + margin <= limit) {
        entry.pending += 1;
        arm();
        return answer(counted + 1, entry.endsAt, true);
      }
    }
    return countShared(subject, now);
  };
}

/** The per-key and per-address request counters over the database (fixed windows), counted in memory between reconciliations. */
export function createRequestLimits(db: Db, settings: RequestLimitSettings, log: Logger): RequestLimits {
  const { windowMs, syncMs = DEFAULT_SYNC_MS } = settings;
  const perKey = settings.perKey > 0 ? counter(db, log, 'requests_per_key', settings.perKey, windowMs, syncMs) : undefined;
  const perIp = settings.perIp > 0 ? counter(db, log, 'requests_per_address', settings.perIp, windowMs, syncMs) : undefined;
  return {
    settings,
    countKey(apiKeyId) {
      return perKey?.(apiKeyId);
    },
    countAddress(ip) {
      return perIp?.(addressKey(ip));
    },
  };
}
