import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/connect';
import { knexLimiterStore } from '../db/limiter-store';
import { errors, retryAfter } from './errors';
import { t } from './i18n';
import { addressKey } from './request-limits';

/** How e-mailed codes may be asked for and guessed, by subject and client address (docs/configuration.md: SVC_CODE_*). */
export interface CodeLimitSettings {
  /** Wrong codes from one client for one subject within `lockMs` after which the subject's owner is told. */
  wrongLimit: number;
  /** The window a client's wrong codes are counted in. */
  lockMs: number;
  /** Code requests and checks per client address within `ipWindowMs`. */
  ipLimit: number;
  ipWindowMs: number;
  /** Codes checked for one subject's budget (a sign-in address, a principal's mandate grants) within `subjectWindowMs`, from every address together. */
  subjectLimit: number;
  subjectWindowMs: number;
}

/**
 * Guessing is slowed per subject *and client*: a client's wrong codes make that client wait, longer
 * each time, and never anyone else, so a stranger cannot lock the mailbox owner out. A client is its
 * address (an IPv6 client its /64).
 */
export interface CodeLimits {
  /** Milliseconds this client must still wait before its next code for the subject is checked; 0 when none. */
  waitFor(purpose: string, subject: string, client: string): Promise<number>;
  /** Counts a wrong code from this client: how long it must now wait, and whether this one reached the owner's threshold. */
  countWrong(purpose: string, subject: string, client: string): Promise<{ waitMs: number; thresholdReached: boolean }>;
  /** Counts one code sent to the subject at this client's request; 429 past `perWindow` within `windowMs`. */
  consumeIssue(purpose: string, subject: string, client: string, perWindow: number, windowMs: number): Promise<void>;
  /** Counts one code request or check from a client address; 429 past the limit. */
  consumeIp(ip: string): Promise<void>;
  /**
   * Takes one check from the budget of codes checked for `budget` (whatever address they come from),
   * before the code is compared, so concurrent checks cannot overrun it; throws the refusal past it.
   */
  takeCheck(purpose: string, budget: string): Promise<void>;
  /** Gives a right code's check back: only wrong codes spend the budget. */
  giveBackCheck(purpose: string, budget: string): Promise<void>;
}

/** Thrown by `takeCheck` once a subject's budget is spent: how long until codes are checked again. */
export class CheckBudgetSpent extends Error {
  constructor(readonly msBeforeNext: number) {
    super('code check budget spent');
  }
}

/** A 31-day month, the longest. */
const MONTH_MS = 31 * 24 * 3600_000;

/**
 * The most codes one subject's budget lets be checked in any month: its windows are fixed (each starts
 * with the first check after the last one ended and lasts `windowMs`), so at most ceil(month / window) + 1 touch a month.
 */
export function checksPerMonth(limit: number, windowMs: number): number {
  return limit * (Math.ceil(MONTH_MS / windowMs) + 1);
}

/**
 * The chance that guessing opens a subject within a month: each check of a code of `digits` random
 * digits, after at most `tries - 1` wrong ones on that code, is right with probability 1/(10^digits − (tries − 1)).
 */
export function monthlyGuessBound(limit: number, windowMs: number, digits: number, tries: number): number {
  return checksPerMonth(limit, windowMs) / (10 ** digits - (tries - 1));
}

/** Counters are shared by every API process: the table is in the project's database (DESIGN: reliability). */
const TABLE = 'rate_limits';
/** Wrong codes a client may make for a subject before each further one costs a wait. */
export const FREE_WRONG_CODES = 3;
/** The longest wait between two tries of one client (the waits double up to it). */
export const LONGEST_WAIT_MS = 15 * 60_000;

/** How long a client waits after its `wrong`-th wrong code: nothing for the first few, then 1 s, 2 s, 4 s … up to 15 minutes. */
export function waitAfter(wrong: number): number {
  if (wrong <= FREE_WRONG_CODES) return 0;
  return Math.min(LONGEST_WAIT_MS, 1000 * 2 ** (wrong - FREE_WRONG_CODES - 1));
}

// A long key (an e-mail address as typed, a client) is hashed to fit the limiter's key column.
function keyOf(...parts: string[]): string {
  const key = parts.join(':');
  return key.length <= 100 ? key : `#${createHash('sha256').update(key).digest('hex')}`;
}

/** The client key of an address: the address itself, an IPv6 one by its /64. */
export function codeClient(ip: string | null | undefined): string {
  return ip ? addressKey(ip) : 'unknown';
}

export function createCodeLimits(db: Db, settings: CodeLimitSettings): CodeLimits {
  const storeClient = knexLimiterStore(db);
  const limiter = (keyPrefix: string, points: number, durationMs: number) =>
    new RateLimiterPostgres({
      storeClient,
      storeType: 'client',
      tableName: TABLE,
      tableCreated: true,
      keyPrefix,
      points,
      duration: durationMs / 1000,
    });
  // Counts each client's wrong codes per subject over the window; never blocks by itself.
  const wrong = limiter('code-wrong', Number.MAX_SAFE_INTEGER, settings.lockMs);
  // Holds the wait a client owes after its last wrong code (block() sets it).
  const waits = limiter('code-wait', 1, LONGEST_WAIT_MS);
  const perIp = limiter('code-ip', settings.ipLimit, settings.ipWindowMs);
  const perSubject = limiter('code-subject', settings.subjectLimit, settings.subjectWindowMs);

  return {
    async waitFor(purpose, subject, client) {
      const state = await waits.get(keyOf(purpose, subject, client));
      return state && state.consumedPoints > 1 ? Math.max(1, state.msBeforeNext) : 0;
    },

    async countWrong(purpose, subject, client) {
      const key = keyOf(purpose, subject, client);
      const counted = await wrong.consume(key);
      const waitMs = waitAfter(counted.consumedPoints);
      if (waitMs > 0) await waits.block(key, waitMs / 1000);
      // The store adds points atomically, so exactly one request sees the count reach the threshold.
      return { waitMs, thresholdReached: counted.consumedPoints === settings.wrongLimit };
    },

    async consumeIssue(purpose, subject, client, perWindow, windowMs) {
      try {
        await limiter('code-issue', perWindow, windowMs).consume(keyOf(purpose, subject, client));
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        throw errors.rateLimited(t('errors.codes.too_many_codes_were_requested'), undefined, retryAfter(outcome.msBeforeNext));
      }
    },

    async consumeIp(ip) {
      try {
        await perIp.consume(codeClient(ip));
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        throw errors.rateLimited(t('errors.codes.too_many_code_requests_from'), undefined, retryAfter(outcome.msBeforeNext));
      }
    },

    async takeCheck(purpose, budget) {
      try {
        await perSubject.consume(keyOf(purpose, budget));
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        throw new CheckBudgetSpent(outcome.msBeforeNext);
      }
    },

    async giveBackCheck(purpose, budget) {
      await perSubject.reward(keyOf(purpose, budget));
    },
  };
}
