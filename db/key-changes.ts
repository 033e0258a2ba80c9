import type { Db } from './connect';
import { KEY_CHANGES_CHANNEL } from './migrations/20261201000016_key_changes';
import type { Notices } from './notices';

/** What a key change names: `key:<id>`, `principal:<id>` or `tenant:<id>` (db/migrations/…_key_changes.ts), or `*`. */
export type KeyChange = string;

export interface KeyChangeHandlers {
  /** One row changed (committed) in any process; `*` when this process wrote and which row is not known. */
  changed(subject: KeyChange): void;
  /** Notices may have been missed (listening starts, stops or restarts): forget everything. */
  reset(listening: boolean): void;
}

export interface KeyChangeListener {
  close(): Promise<void>;
}

/**
 * A write of this process to a table authenticating reads, seen as the statement answers (before a
 * transaction's commit; the notice follows the commit): the process that revokes a key forgets it at
 * once, so its next request is refused even before the notice arrives. The batched last_used_at
 * write is none. Inserts are none either: a new row replaces nothing cached.
 */
const WRITE = /^\s*(update|delete\s+from)\s+"?(api_keys|principals|tenants)"?\s/i;
const USAGE_ONLY = /^\s*update\s+api_keys\s+set\s+last_used_at\s*=/i;

/**
 * Calls `handlers` on each change to API keys, principals or tenants: from the trigger's notices
 * (db/notices.ts: on connection loss `reset(false)`, and `reset(true)` once listening again), and
 * from this process's own writes as they answer.
 */
export function listenKeyChanges(db: Db, notices: Notices, handlers: KeyChangeHandlers): KeyChangeListener {
  const ownWrite = (_response: unknown, query: { sql?: string }) => {
    if (query.sql && WRITE.test(query.sql) && !USAGE_ONLY.test(query.sql)) handlers.changed('*');
  };
  db.on('query-response', ownWrite);
  const stopListening = notices.listen(KEY_CHANGES_CHANNEL, {
    notice: (payload) => {
      if (payload) handlers.changed(payload);
    },
    reset: handlers.reset,
  });
  return {
    async close() {
      db.off('query-response', ownWrite);
      await stopListening();
    },
  };
}
