import type { Db } from '../db/connect';
import { type KeyChange, type KeyChangeListener, listenKeyChanges } from '../db/key-changes';
import type { Notices } from '../db/notices';

/** At most this many keys are kept; past it the oldest entry makes room. */
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
  /** The `key:…`, `principal:…` and `tenant:…` whose change drops this entry. */
  subjects: KeyChange[];
}

/**
 * What authenticating a key found, kept in this process by the key's SHA-256 (never the key), so a
 * request with a known key reads nothing. An entry is dropped when a change to its key, principal or
 * tenant is announced (db/key-changes.ts: every process's writes, through PostgreSQL's notices, and
 * this process's own writes at once), and at the latest `ttlMs` after it was read: the bound should a
 * notice be lost. Nothing is cached while the notices are not listened to. Listening starts with the
 * first lookup, so processes that never authenticate (worker, admin commands) open no connection.
 */
export class KeyCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private listener: KeyChangeListener | undefined;
  private listening = false;
  private closed = false;
  /** Moves on every change heard: a lookup that began before one does not store what it read. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly notices: Notices,
    private readonly options: { ttlMs: number },
  ) {}

  /** The cached value of this key hash, or undefined (then look it up, passing `generation` to `set`). */
  get(hash: string, now = Date.now()): T | undefined {
    if (this.closed) return undefined;
    this.listener ??= listenKeyChanges(this.db, this.notices, {
      changed: (subject) => this.forget(subject),
      reset: (listening) => this.reset(listening),
    });
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.entries.delete(hash);
    return undefined;
  }

  /** Whether changes are heard now (only then is anything cached). */
  get isListening(): boolean {
    return this.listening;
  }

  /** Where changes stand now: give it to `set` with what a lookup begun now finds. */
  get version(): number {
    return this.generation;
  }

  set(hash: string, value: T, subjects: KeyChange[], version: number, now = Date.now()): void {
    if (!this.listening || version !== this.generation || this.options.ttlMs === 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, subjects, expiresAt: now + this.options.ttlMs });
  }

  /** Drops every entry that depends on this key, principal or tenant. */
  forget(subject: KeyChange): void {
    this.generation += 1;
    if (subject === '*') this.entries.clear();
    else for (const [hash, entry] of this.entries) if (entry.subjects.includes(subject)) this.entries.delete(hash);
  }

  private reset(listening: boolean): void {
    this.generation += 1;
    this.listening = listening;
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reset(false);
    await this.listener?.close();
    this.listener = undefined;
  }
}
