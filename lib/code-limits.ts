import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/connect';
import { knexLimiterStore } from '../db/limiter-store';
import { errors } from './errors';

/** How many e-mailed codes may be guessed, by subject and by client address (README: SVC_CODE_*). */
export interface CodeLimitSettings {
  /** Wrong codes within `lockMs` that lock a subject. */
  wrongLimit: number;
  /** The window the wrong codes are counted in, and how long the lock then lasts. */
  lockMs: number;
  /** Code requests and checks per client address within `ipWindowMs`. */
  ipLimit: number;
  ipWindowMs: number;
}

export interface CodeLimits {
  /** Milliseconds until the subject's lock ends; 0 when it is not locked. */
  lockedFor(purpose: string, subject: string): Promise<number>;
  /** Counts a wrong code; says whether the subject is now locked and whether this code locked it. */
  countWrong(purpose: string, subject: string): Promise<{ lockedMs: number; lockedNow: boolean }>;
  /** Counts one code request or check from a client address; 429 past the limit. */
  consumeIp(ip: string): Promise<void>;
}

/** Counters are shared by every API process: the table is in the project's database (DESIGN: reliability). */
const TABLE = 'rate_limits';

// A long subject (an e-mail address as typed) is hashed to fit the limiter's key column.
function keyOf(purpose: string, subject: string): string {
  return subject.length <= 100 ? `${purpose}:${subject}` : `${purpose}:#${createHash('sha256').update(subject).digest('hex')}`;
}

export function retryAfter(ms: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}

export function createCodeLimits(db: Db, settings: CodeLimitSettings): CodeLimits {
  const storeClient = knexLimiterStore(db);
  // Points are one below the limit: the library blocks on the first point past them, so the limit-th wrong code locks.
  const wrong = new RateLimiterPostgres({
    storeClient,
    storeType: 'client',
    tableName: TABLE,
    tableCreated: true,
    keyPrefix: 'code-wrong',
    points: settings.wrongLimit - 1,
    duration: settings.lockMs / 1000,
    blockDuration: settings.lockMs / 1000,
  });
  const perIp = new RateLimiterPostgres({
    storeClient,
    storeType: 'client',
    tableName: TABLE,
    tableCreated: true,
    keyPrefix: 'code-ip',
    points: settings.ipLimit,
    duration: settings.ipWindowMs / 1000,
  });

  return {
    async lockedFor(purpose, subject) {
      const state = await wrong.get(keyOf(purpose, subject));
      return state && state.consumedPoints >= settings.wrongLimit ? Math.max(1, state.msBeforeNext) : 0;
    },

    async countWrong(purpose, subject) {
      try {
        await wrong.consume(keyOf(purpose, subject));
        return { lockedMs: 0, lockedNow: false };
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        // The store adds points atomically, so exactly one request sees the count reach the limit.
        return { lockedMs: Math.max(1, outcome.msBeforeNext), lockedNow: outcome.consumedPoints === settings.wrongLimit };
      }
    },

    async consumeIp(ip) {
      try {
        await perIp.consume(ip || 'unknown');
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        throw errors.rateLimited(
          'Too many code requests from your address; wait a few minutes and try again.',
          undefined,
          retryAfter(outcome.msBeforeNext),
        );
      }
    },
  };
}
