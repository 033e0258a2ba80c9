import pg from 'pg';
import type { Db } from './connect';
import type { DbLog } from './log';

export interface NoticeHandlers {
  /** A notice on the channel (sent by a transaction that committed, in any process). */
  notice(payload: string): void;
  /** Notices may have been missed (listening starts, stops or restarts): `listening` says which. */
  reset(listening: boolean): void;
}

/** The application_name of the listening connection, so an operator (or a test) can find it. */
export const NOTICES_APPLICATION = 'svc-notices';

/** Waits before listening again after the connection was lost: doubling from the first, up to the last. */
const RECONNECT_MS = [100, 5_000];

interface PgliteConnection {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/**
 * PostgreSQL's notices (LISTEN/NOTIFY) for this process: one listening connection of its own on
 * PostgreSQL, whatever the number of channels and subscribers, listening again with backoff after
 * it was lost (each subscriber is told `reset(false)`, then `reset(true)`); on PGlite, its `listen` on
 * the one connection. The connection opens with the first subscriber, so a process that listens to
 * nothing opens none.
 */
export class Notices {
  private readonly subscribers = new Map<string, Set<NoticeHandlers>>();
  private client: pg.Client | undefined;
  /** Channels the current connection listens on (PostgreSQL), or their unlisten (PGlite). */
  private readonly listened = new Map<string, () => Promise<void>>();
  private connected = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private waitMs = RECONNECT_MS[0];
  /** LISTEN and UNLISTEN run one at a time, in the order asked. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly options: { databaseUrl?: string; log?: DbLog },
  ) {}

  /** Calls `handlers` on each notice on `channel` until the answer is called. */
  listen(channel: string, handlers: NoticeHandlers): () => Promise<void> {
    if (this.closed) throw new Error('database notices are closed');
    const subscribers = this.subscribers.get(channel) ?? new Set();
    this.subscribers.set(channel, subscribers);
    subscribers.add(handlers);
    if (this.listened.has(channel)) queueMicrotask(() => handlers.reset(true));
    else if (!this.options.databaseUrl || this.connected) this.serially(() => this.listenOn(channel));
    else if (!this.client && !this.retry) void this.connect();
    return async () => {
      subscribers.delete(handlers);
      if (subscribers.size > 0) return;
      this.subscribers.delete(channel);
      await this.serially(() => this.unlisten(channel));
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const unlistens = [...this.listened.values()];
    this.listened.clear();
    if (!this.options.databaseUrl) for (const unlisten of unlistens) await unlisten().catch(() => undefined);
    const open = this.client;
    this.client = undefined;
    open?.removeAllListeners();
    open?.on('error', () => undefined);
    await open?.end().catch(() => undefined);
  }

  private serially(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step).catch((error) => this.options.log?.warn('listening for database notices failed', { error }));
    return this.queue;
  }

  private deliver(channel: string, payload: string): void {
    for (const handlers of this.subscribers.get(channel) ?? []) handlers.notice(payload);
  }

  /** Listens on a channel that has subscribers and is not listened on yet, then tells them. */
  private async listenOn(channel: string): Promise<void> {
    if (this.closed || this.listened.has(channel) || !this.subscribers.has(channel)) return;
    if (this.options.databaseUrl) {
      const client = this.client;
      if (!client || !this.connected) return;
      await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (client !== this.client) return;
      this.listened.set(channel, async () => {
        await client.query(`unlisten ${pg.escapeIdentifier(channel)}`);
      });
    } else {
      // LISTEN runs on the one connection while this holds it, so it never lands inside another's transaction.
      const connection = (await this.db.client.acquireConnection()) as PgliteConnection;
      try {
        this.listened.set(channel, await connection.listen(channel, (payload) => this.deliver(channel, payload)));
      } finally {
        await this.db.client.releaseConnection(connection);
      }
    }
    for (const handlers of this.subscribers.get(channel) ?? []) handlers.reset(true);
  }

  private async unlisten(channel: string): Promise<void> {
    const unlisten = this.listened.get(channel);
    this.listened.delete(channel);
    await unlisten?.();
  }

  private async connect(): Promise<void> {
    const next = new pg.Client({ connectionString: this.options.databaseUrl, application_name: NOTICES_APPLICATION });
    this.client = next;
    next.on('error', (error) => this.lost(next, error));
    next.on('end', () => this.lost(next));
    next.on('notification', (message) => this.deliver(message.channel, message.payload ?? ''));
    try {
      await next.connect();
    } catch (error) {
      this.lost(next, error);
      return;
    }
    if (this.closed || this.client !== next) return;
    this.connected = true;
    this.waitMs = RECONNECT_MS[0];
    for (const channel of this.subscribers.keys()) void this.serially(() => this.listenOn(channel));
  }

  /** The connection is gone: every subscriber may miss notices until it is back (with backoff). */
  private lost(gone: pg.Client, error?: unknown): void {
    if (gone !== this.client) return;
    const wasListening = this.listened.size > 0;
    this.client = undefined;
    this.connected = false;
    this.listened.clear();
    gone.removeAllListeners();
    gone.on('error', () => undefined);
    gone.end().catch(() => undefined);
    for (const subscribers of this.subscribers.values()) for (const handlers of subscribers) handlers.reset(false);
    if (this.closed || this.retry) return;
    if (wasListening)
      this.options.log?.warn('database notices lost; polling until listening again', { error, channels: [...this.subscribers.keys()] });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.subscribers.size > 0) void this.connect();
    }, this.waitMs).unref();
    this.waitMs = Math.min(this.waitMs * 2, RECONNECT_MS[1]);
  }
}
