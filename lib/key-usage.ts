import type { Db } from '../db/connect';
import { type Logger, withoutLogContext } from './log';

/** last_used_at is kept at this resolution: a key used again within it is not written again. */
export const KEY_USAGE_RESOLUTION_MS = 60_000;

/**
 * When each API key was last used, written in batches off the request path: a request marks its key
 * in memory, and one UPDATE per flush (every SVC_KEY_USAGE_FLUSH_MS, and on close) writes them all.
 * A key is marked at most once per resolution, so a busy key costs no write at all in between. What
 * a process marked and had not flushed when it died is lost; the next use marks it again.
 */
export class KeyUsage {
  private readonly pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly flushMs: number,
    private readonly log?: Logger,
  ) {}

  /** Marks a key used at `now` (and sets it on the row in hand) unless it was within the resolution. */
  touch(key: { id: string; last_used_at: Date | null }, now = new Date()): void {
    if (key.last_used_at && now.getTime() - key.last_used_at.getTime() <= KEY_USAGE_RESOLUTION_MS) return;
    key.last_used_at = now;
    this.pending.set(key.id, now);
    // Armed during whichever request came first, the flush is no request's: its lines carry no request_id.
    this.timer ??= setTimeout(
      () =>
        withoutLogContext(() => {
          this.timer = undefined;
          this.flush().catch((error) => this.log?.warn('writing API key usage failed; kept for the next flush', { error }));
        }),
      this.flushMs,
    ).unref();
  }

  /** Writes every marked key in one statement (a later use never moves last_used_at back). */
  async flush(): Promise<void> {
    await this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    this.flushing = (async () => {
      try {
        const values = batch.map(() => '(?, ?::timestamptz)').join(', ');
        await this.db.raw(
          `update api_keys set last_used_at = usage.at from (values ${values}) as usage(id, at)
           where api_keys.id = usage.id and (api_keys.last_used_at is null or api_keys.last_used_at < usage.at)`,
          batch.flatMap(([id, at]) => [id, at.toISOString()]),
        );
      } catch (error) {
        for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
        throw error;
      } finally {
        this.flushing = undefined;
      }
    })();
    await this.flushing;
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
