// The commit's own word that an apply settled: a PostgreSQL notice sent by the transaction that ended
// it, heard by the request that waits for it (orchestration.ts), so the request answers as soon as
// the apply commits instead of after the workflow task around it completes and the update's result
// travels back through Temporal. The update stays the hand-over and the answer when no notice comes.
import type { Knex } from 'knex';
import type { Notices } from '../../db/notices';
import type { ApplyOutcome } from './apply-outcome';

/** The channel an apply's end is announced on; its payload is the outcome as JSON. */
export const APPLY_SETTLED_CHANNEL = 'apply_settled';

/** PostgreSQL refuses a payload of 8,000 bytes or more; an outcome is far smaller (its message is bounded). */
const MAX_PAYLOAD = 7_900;

/**
 * Announces an apply's outcome in the transaction that ended it: PostgreSQL delivers the notice when
 * that transaction commits, to every process listening, and never when it rolls back.
 */
export async function announceSettled(trx: Knex | Knex.Transaction, outcome: ApplyOutcome): Promise<void> {
  await settledNotice(trx, outcome);
}

/** announceSettled's statement, not yet run: the last of a commit's one statement (db/one-statement.ts). */
export function settledNotice(trx: Knex | Knex.Transaction, outcome: ApplyOutcome): Knex.Raw {
  const payload = JSON.stringify(outcome);
  // Too long to announce: the request answers from the update.
  if (Buffer.byteLength(payload) > MAX_PAYLOAD) return trx.raw('select 1 where false');
  return trx.raw('select pg_notify(?, ?)', [APPLY_SETTLED_CHANNEL, payload]);
}

/** One request's wait for its apply's notice. */
export interface SettledWait {
  /** Resolves with the announced outcome; never rejects, and stays pending when no notice comes. */
  readonly settled: Promise<ApplyOutcome>;
  /** Stops waiting (always call it once the answer is known). */
  cancel(): void;
}

/**
 * The applies this process's requests wait for, and the notices that end their waits. Listening
 * starts with the first wait and lasts as long as the process's notices (one connection for every
 * channel, db/notices.ts). A notice missed (not listening yet, the connection lost) costs nothing but
 * time: the request then answers from the workflow's update, as without notices.
 */
export class SettledApplies {
  private readonly waiting = new Map<string, Set<(outcome: ApplyOutcome) => void>>();
  /** Hand-overs still talking to Temporal after their request answered from the notice. */
  private readonly handingOver = new Set<Promise<unknown>>();
  private listening = false;

  constructor(private readonly notices: Notices | undefined) {}

  /**
   * Keeps a hand-over that goes on after its request answered from the notice (the update's call
   * still waits for the workflow task), until it ends: `drain` waits for it before the process closes
   * its Temporal connection, which would otherwise fail the call from under it.
   */
  track(handOver: Promise<unknown>): void {
    const settled = handOver.then(
      () => undefined,
      () => undefined,
    );
    this.handingOver.add(settled);
    void settled.then(() => this.handingOver.delete(settled));
  }

  /** Waits for the hand-overs still in flight, `ms` at most (each is bounded by its own deadline too). */
  async drain(ms: number): Promise<void> {
    if (this.handingOver.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.handingOver),
      new Promise((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  wait(applyId: string): SettledWait {
    this.listen();
    let resolve!: (outcome: ApplyOutcome) => void;
    const settled = new Promise<ApplyOutcome>((done) => {
      resolve = done;
    });
    const waiters = this.waiting.get(applyId) ?? new Set();
    this.waiting.set(applyId, waiters);
    waiters.add(resolve);
    return {
      settled,
      cancel: () => {
        waiters.delete(resolve);
        if (waiters.size === 0 && this.waiting.get(applyId) === waiters) this.waiting.delete(applyId);
      },
    };
  }

  /** How many requests wait now (for tests and operators: it is back to 0 when none does). */
  get size(): number {
    return this.waiting.size;
  }

  private listen(): void {
    if (this.listening || !this.notices) return;
    this.listening = true;
    try {
      this.notices.listen(APPLY_SETTLED_CHANNEL, {
        notice: (payload) => this.deliver(payload),
        reset: () => undefined,
      });
    } catch {
      // The process's notices are closed (it is stopping): its requests answer from the update.
    }
  }

  private deliver(payload: string): void {
    let outcome: ApplyOutcome;
    try {
      outcome = JSON.parse(payload) as ApplyOutcome;
    } catch {
      return;
    }
    const waiters = this.waiting.get(outcome?.apply_id);
    if (!waiters) return;
    this.waiting.delete(outcome.apply_id);
    for (const resolve of waiters) resolve(outcome);
  }
}
