// Waiting on the service: a signature still being applied (202 `processing`), asked again with the
// same Idempotency-Key, and a bulk send looked at until every item is made or refused.
import { randomUUID } from 'node:crypto';
import { type Http, SvcError } from './http';
import type { Bulk, Query } from './types';

/** How long signAsPrincipal and acceptOffer wait for a signature still being applied (202): 5 minutes. */
export const DEFAULT_APPLY_WAIT_MS = 5 * 60_000;
const APPLY_REPEAT_PAUSE_MS = 1000;

/** How long waitForBulk waits by default: 30 minutes. */
export const DEFAULT_BULK_WAIT_MS = 30 * 60_000;

export interface BulkWait {
  /** How long to wait in all (default 30 minutes). */
  timeoutMs?: number;
  /** Between looks (default 1 s). */
  intervalMs?: number;
  /** Each look at the bulk: its status and counts (total, created, failed, pending). */
  onProgress?: (bulk: Bulk) => void;
}

export interface ApplyWait {
  /**
   * How long to wait, in milliseconds, for a signature the service still applies after its own
   * wait (a 202 `processing` answer); then the `processing` answer is returned. 0 returns it at once.
   */
  waitMs?: number;
}

/**
 * A POST that applies a signature: while the service answers 202 (still being applied), the same
 * call is repeated with its Idempotency-Key, which answers that apply's outcome instead of signing
 * again; each repeat waits on the service's side, so this is no busy loop.
 */
export async function untilApplied<T>(http: Http, path: string, body: unknown, { waitMs = DEFAULT_APPLY_WAIT_MS }: ApplyWait): Promise<T> {
  const idempotencyKey = randomUUID();
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = await http.send<T>('POST', path, { body, idempotencyKey });
    if (answer.status !== 202 || Date.now() >= deadline) return answer.body;
    await new Promise((resolve) => setTimeout(resolve, Math.min(APPLY_REPEAT_PAUSE_MS, Math.max(0, deadline - Date.now()))));
  }
}

/** Looks at a bulk send (`look`: GET /v1/bulk/:id) until it is `completed`, then answers it with all its items (see SvcClient.waitForBulk). */
export async function untilBulkCompleted(id: string, look: (query: Query<'getBulk'>) => Promise<Bulk>, options: BulkWait): Promise<Bulk> {
  const { timeoutMs = DEFAULT_BULK_WAIT_MS, intervalMs = 1000, onProgress } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const bulk = await look({ limit: 1 });
    onProgress?.(bulk);
    if (bulk.status === 'completed') break;
    if (Date.now() >= deadline) throw new SvcError('timeout', `Bulk send ${id} is still running after ${timeoutMs} ms.`, 0);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
  const items: Bulk['items'] = [];
  let cursor: string | undefined;
  let last: Bulk;
  do {
    last = await look({ limit: 500, cursor });
    items.push(...last.items);
    cursor = last.next_cursor ?? undefined;
  } while (cursor);
  return { ...last, items, next_cursor: null };
}
