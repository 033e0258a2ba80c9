import { isIP } from 'node:net';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/connect';
import { knexLimiterStore } from '../db/limiter-store';
import type { Logger } from './log';

/** The general request limits (README: SVC_RATE_LIMIT_*); a count of 0 turns that limit off. */
export interface RequestLimitSettings {
  /** Requests per window with one API key. */
  perKey: number;
  /** Requests per window from one client address, for every request without a valid key. */
  perIp: number;
  windowMs: number;
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

export interface RequestLimits {
  readonly settings: RequestLimitSettings;
  /** Counts a request made with this API key (its id, never the key); undefined while the limit is off. */
  countKey(apiKeyId: string): Promise<RequestCount | undefined>;
  /** Counts a request from this client address; undefined while the limit is off. */
  countAddress(ip: string): Promise<RequestCount | undefined>;
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

type Counter = (subject: string) => Promise<RequestCount>;

function counter(db: Db, log: Logger, name: RequestLimitName, limit: number, windowMs: number): Counter {
  const options = { keyPrefix: name, points: limit, duration: windowMs / 1000 };
  const shared = new RateLimiterPostgres({
    ...options,
    storeClient: knexLimiterStore(db),
    storeType: 'client',
    tableName: TABLE,
    tableCreated: true,
    // A refused subject is then refused from memory until its window ends, with no query: the end
    // is the shared row's, so every process would refuse it until then anyway.
    inMemoryBlockOnConsumed: limit + 1,
  });
  // Counts in this process while the database does not answer: a limit per process beats none, and an outage of the counters must not fail requests.
  const local = new RateLimiterMemory(options);
  let warnedAt = 0;

  const count = (outcome: RateLimiterRes, allowed: boolean): RequestCount => ({
    name,
    limit,
    remaining: allowed ? outcome.remainingPoints : 0,
    resetMs: Math.max(0, outcome.msBeforeNext),
    allowed,
  });
  const consume = async (limiter: RateLimiterPostgres | RateLimiterMemory, subject: string): Promise<RequestCount> => {
    try {
      return count(await limiter.consume(subject), true);
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return count(outcome, false);
      throw outcome;
    }
  };

  /**
   * Points taken from the shared row a few at a time (a fiftieth of the limit): the next requests of
   * that subject are counted here without a write, so a busy key costs one upsert per `chunk`
   * requests instead of one each. Points a process took and did not use by the window's end are
   * lost, so a subject may be refused up to (chunk − 1) requests early per API process; never late.
   */
  const chunk = Math.max(1, Math.floor(limit / 50));
  const reserved = new Map<string, { left: number; shared: number; endsAt: number }>();
  const consumeShared = async (subject: string): Promise<RequestCount> => {
    const now = Date.now();
    const held = reserved.get(subject);
    if (held && held.left > 0 && now < held.endsAt) {
      held.left -= 1;
      return { name, limit, remaining: held.shared + held.left, resetMs: held.endsAt - now, allowed: true };
    }
    if (reserved.size > 10_000) for (const [key, entry] of reserved) if (entry.endsAt <= now) reserved.delete(key);
    try {
      const outcome = await shared.consume(subject, chunk);
      reserved.set(subject, { left: chunk - 1, shared: outcome.remainingPoints, endsAt: now + outcome.msBeforeNext });
      return count(outcome, true);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      reserved.delete(subject);
      // The row's answer (not a refusal from memory, which carries no count) says fewer than a chunk
      // but at least one point was left: this request takes one of them (the row now counts the whole
      // chunk, so the subject is refused from here to the window's end).
      const counted = outcome.consumedPoints;
      if (chunk > 1 && counted > limit && counted - chunk < limit) return { ...count(outcome, true), remaining: 0 };
      return count(outcome, false);
    }
  };

  return async (subject) => {
    try {
      return await consumeShared(subject);
    } catch (error) {
      if (Date.now() - warnedAt >= WARN_EVERY_MS) {
        warnedAt = Date.now();
        log.warn('rate limit counters unreachable in the database; counting in this process meanwhile', { limit: name, error });
      }
      return consume(local, subject);
    }
  };
}

/** The per-key and per-address request counters over the database (rate-limiter-flexible, fixed windows). */
export function createRequestLimits(db: Db, settings: RequestLimitSettings, log: Logger): RequestLimits {
  const perKey = settings.perKey > 0 ? counter(db, log, 'requests_per_key', settings.perKey, settings.windowMs) : undefined;
  const perIp = settings.perIp > 0 ? counter(db, log, 'requests_per_address', settings.perIp, settings.windowMs) : undefined;
  return {
    settings,
    async countKey(apiKeyId) {
      return perKey?.(apiKeyId);
    },
    async countAddress(ip) {
      return perIp?.(addressKey(ip));
    },
  };
}
