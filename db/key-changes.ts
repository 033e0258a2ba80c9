import pg from 'pg';
import type { Logger } from '../lib/log';
import type { Db } from './connect';
import { KEY_CHANGES_CHANNEL } from './migrations/20261201000016_key_changes';

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

/** Waits before listening again after the connection was lost: doubling from the first, up to the last. */
const RECONNECT_MS = [100, 5_000];

/**
 * A write of this process to a table authenticating reads, seen as the statement answers (before a
 * transaction's commit; the notice follows the commit): the process that revokes a key forgets it at
 * once, so its next request is refused even before the notice arrives. The batched last_used_at
 * write is none. Inserts are none either: a new row replaces nothing cached.
 */
const WRITE = /^\s*(update|delete\s+from)\s+"?(api_keys|principals|tenants)"?\s/i;
const USAGE_ONLY = /^\s*update\s+api_keys\s+set\s+last_used_at\s*=/i;

/**
 * Calls `handlers` on each change to API keys, principals or tenants: from the trigger's notices on
 * a connection of its own (PostgreSQL; on connection loss `reset` and listen again), or on PGlite's
 * one connection; and from this process's own writes as they answer.
 */
export function listenKeyChanges(db: Db, options: { databaseUrl?: string; log?: Logger }, handlers: KeyChangeHandlers): KeyChangeListener {
  const ownWrite = (_response: unknown, query: { sql?: string }) => {
    if (query.sql && WRITE.test(query.sql) && !USAGE_ONLY.test(query.sql)) handlers.changed('*');
  };
  db.on('query-response', ownWrite);
  const stopListening = options.databaseUrl
    ? listenOnPostgres(options.databaseUrl, options.log, handlers)
    : listenOnPglite(db, options.log, handlers);
  return {
    async close() {
      db.off('query-response', ownWrite);
      await stopListening();
    },
  };
}

function listenOnPostgres(databaseUrl: string, log: Logger | undefined, handlers: KeyChangeHandlers): () => Promise<void> {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let waitMs = RECONNECT_MS[0];

  const lost = (error?: unknown) => {
    handlers.reset(false);
    const gone = client;
    client = undefined;
    gone?.removeAllListeners();
    gone?.on('error', () => undefined);
    gone?.end().catch(() => undefined);
    if (closed || retry) return;
    log?.warn('API key change notices lost; authenticating from the database until listening again', { error });
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, waitMs).unref();
    waitMs = Math.min(waitMs * 2, RECONNECT_MS[1]);
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: 'svc-key-changes' });
    client = next;
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => {
      if (message.channel === KEY_CHANGES_CHANNEL && message.payload) handlers.changed(message.payload);
    });
    try {
      await next.connect();
      await next.query(`listen ${KEY_CHANGES_CHANNEL}`);
    } catch (error) {
      if (client === next) lost(error);
      return;
    }
    if (closed || client !== next) return;
    waitMs = RECONNECT_MS[0];
    // Whatever changed while nobody listened is unknown: what was cached before is dropped.
    handlers.reset(true);
  };

  void connect();
  return async () => {
    closed = true;
    clearTimeout(retry);
    const open = client;
    client = undefined;
    open?.removeAllListeners();
    open?.on('error', () => undefined);
    await open?.end().catch(() => undefined);
  };
}

interface PgliteConnection {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

function listenOnPglite(db: Db, log: Logger | undefined, handlers: KeyChangeHandlers): () => Promise<void> {
  // LISTEN runs on the one connection while this holds it, so it never lands inside another's transaction.
  const listening = (async () => {
    const connection = (await db.client.acquireConnection()) as PgliteConnection;
    try {
      return await connection.listen(KEY_CHANGES_CHANNEL, (payload) => handlers.changed(payload));
    } finally {
      await db.client.releaseConnection(connection);
    }
  })();
  listening.then(
    () => handlers.reset(true),
    (error) => log?.warn('listening for API key changes failed; every key is looked up in the database', { error }),
  );
  return async () => {
    const unlisten = await listening.catch(() => undefined);
    await unlisten?.().catch(() => undefined);
  };
}
