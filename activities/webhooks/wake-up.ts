import { OUTBOX_CHANNEL } from '../../db/migrations/20261202000017_outbox_notices';
import type { Notices } from '../../db/notices';

/** How a rest between looks at the outbox ended. */
export type RestEnd = 'notice' | 'poll' | 'cancelled';

/** One relay run's view of the outbox notices: a notice since its last look cuts its next rest short. */
export interface Watch {
  /** Call as a look begins: what committed before it is seen by that look, what commits after wakes the next rest. */
  looking(): void;
  /** Rests up to `ms`, less when an event commits (or the notices were lost and are back: one was maybe missed). */
  rest(ms: number, signal?: AbortSignal): Promise<RestEnd>;
  close(): void;
}

/**
 * Wakes the relay's activity when events commit (the `outbox` channel, db/migrations/…_outbox_notices.ts)
 * instead of letting it wait out SVC_OUTBOX_POLL_MS. Listening starts with the first relay run and
 * lasts as long as the process's notices. Every relay on the database hears every commit: for one of
 * another task queue, that is one early look. Without notices (none given, or the connection lost),
 * a rest is the whole poll, as before.
 */
export class OutboxWakeUp {
  private readonly watches = new Set<{ noticed: boolean; wake?: () => void }>();
  private listening = false;

  constructor(private readonly notices: Notices | undefined) {}

  watch(): Watch {
    if (!this.listening && this.notices) {
      this.listening = true;
      this.notices.listen(OUTBOX_CHANNEL, {
        notice: () => this.wakeAll(),
        // Back after a loss: events committed meanwhile were announced to nobody.
        reset: (listening) => {
          if (listening) this.wakeAll();
        },
      });
    }
    const state: { noticed: boolean; wake?: () => void } = { noticed: false };
    this.watches.add(state);
    return {
      looking: () => {
        state.noticed = false;
      },
      rest: (ms, signal) =>
        new Promise<RestEnd>((resolve) => {
          if (state.noticed || signal?.aborted) return resolve(signal?.aborted ? 'cancelled' : 'notice');
          const end = (how: RestEnd) => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', cancelled);
            state.wake = undefined;
            resolve(how);
          };
          const cancelled = () => end('cancelled');
          const timer = setTimeout(() => end('poll'), ms);
          signal?.addEventListener('abort', cancelled, { once: true });
          state.wake = () => end('notice');
        }),
      close: () => {
        this.watches.delete(state);
      },
    };
  }

  private wakeAll(): void {
    for (const state of this.watches) {
      state.noticed = true;
      state.wake?.();
    }
  }
}
