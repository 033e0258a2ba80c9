// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authenticateKey, type Caller, revokeKey, setPlan } from '../activities/accounts/accounts';
import type { Services } from '../activities/services';
import { ApiKey } from '../db/models';
import { NOTICES_APPLICATION } from '../db/notices';
import { type Account, createAccount } from '../test/factories';
import { call } from '../test/http';
import { queriesDuring } from '../test/queries';
import { type Stack, startStack, testDbDriver } from '../test/stack';
import { waitFor } from '../test/wait';
import { KeyCache } from './key-cache';

/** The bound SPEC's revocation is held to here: every API process refuses a revoked key within it. */
const VISIBLE_WITHIN_MS = 1_000;

interface Api {
  url: string;
  deps: Services;
}

/** Polls `url` with the key until `done` holds for the answer; fails past `boundMs`. */
async function answersWithin(api: Api, key: string, done: (status: number, body: any) => boolean, boundMs: number) {
  const started = Date.now();
  for (;;) {
    const reply = await call(api.url, 'GET', '/v1/me', { key });
    if (done(reply.status, reply.body)) return Date.now() - started;
    assert.ok(Date.now() - started <= boundMs, `still ${reply.status} ${reply.text} after ${Date.now() - started} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many times the API read the key while answering one request. */
async function keyReadsOf(api: Api, account: Account): Promise<number> {
  const seen = await queriesDuring(api.deps.db, async () => {
    assert.equal((await call(api.url, 'GET', '/v1/me', { key: account.key })).status, 200);
  });
  return seen.filter((sql) => /from "api_keys"/.test(sql)).length;
}

/** Answers `account`'s requests from its cache: listening, and the key read once. */
async function warm(api: Api, account: Account): Promise<void> {
  await call(api.url, 'GET', '/v1/me', { key: account.key });
  await waitFor('the key cache listening', () => api.deps.keyCache.isListening, 5_000, 20);
  await call(api.url, 'GET', '/v1/me', { key: account.key });
  assert.equal(await keyReadsOf(api, account), 0, 'the key is answered from the cache');
}

describe('the key cache of each API process', () => {
  let stack: Stack;
  let first: Api;

  before(async () => {
    stack = await startStack({ worker: false });
    first = { url: stack.url, deps: stack.deps };
  });
  after(() => stack.close());

  it('hears a change written by a statement it does not see itself (the trigger’s notice), within 1 s', async () => {
    const account = await createAccount(stack.deps.db);
    await warm(first, account);
    // A CTE is no write this process recognises: only PostgreSQL's (or PGlite's) notice drops the entry.
    await stack.deps.db.raw(
      'with revoked as (update api_keys set revoked_at = now() where id = ? returning id) select count(*) from revoked',
      [account.keyId],
    );
    await answersWithin(first, account.key, (status) => status === 401, VISIBLE_WITHIN_MS);
  });

  it('still marks a cached key used (last_used_at, batched)', async () => {
    const account = await createAccount(stack.deps.db);
    const cache = new KeyCache<Caller>(stack.deps.db, stack.deps.notices, { ttlMs: 10 * 60_000 });
    const touch = (apiKey: ApiKey, now: Date) => stack.deps.keyUsage.touch(apiKey, now);
    try {
      await authenticateKey(stack.deps.db, account.key, { cache, touch });
      await waitFor('the key cache listening', () => cache.isListening, 5_000, 20);
      await authenticateKey(stack.deps.db, account.key, { cache, touch });
      await stack.deps.keyUsage.flush();
      // Two minutes on, past last_used_at's resolution, the key comes from the cache and is marked again.
      const later = new Date(Date.now() + 2 * 60_000);
      let caller: Caller | undefined;
      const seen = await queriesDuring(stack.deps.db, async () => {
        caller = await authenticateKey(stack.deps.db, account.key, { cache, touch }, later);
      });
      assert.equal(caller?.apiKey.id, account.keyId);
      assert.deepEqual(seen, [], 'answered from the cache');
      await stack.deps.keyUsage.flush();
      const written = (await ApiKey.query(stack.deps.db).findById(account.keyId))!.last_used_at;
      assert.equal(written?.toISOString(), later.toISOString());
    } finally {
      await cache.close();
    }
  });
});

describe('the key caches of two API processes on one PostgreSQL database', { skip: testDbDriver() === 'pglite' }, () => {
  let stack: Stack;
  let first: Api;
  let second: Api & { close(): Promise<void> };

  before(async () => {
    stack = await startStack({ worker: false });
    first = { url: stack.url, deps: stack.deps };
    second = await stack.withEnv({});
  });
  after(() => stack.close());

  it('a key revoked through one is refused by the other within 1 s, and by the first at once', async () => {
    const account = await createAccount(stack.deps.db);
    await warm(first, account);
    await warm(second, account);
    await revokeKey(first.deps.db, account.keyId);
    assert.equal((await call(first.url, 'GET', '/v1/me', { key: account.key })).status, 401, 'the revoking process forgot it');
    await answersWithin(second, account.key, (status) => status === 401, VISIBLE_WITHIN_MS);
  });

  it('a plan changed through one is seen by the other within 1 s', async () => {
    const account = await createAccount(stack.deps.db);
    await warm(second, account);
    await setPlan(first.deps.db, { tenantId: account.tenantId, plan: 'enterprise' });
    await answersWithin(second, account.key, (status, body) => status === 200 && body.plan === 'enterprise', VISIBLE_WITHIN_MS);
  });

  it('after losing its listening connection, forgets what it cached and listens again', async () => {
    const account = await createAccount(stack.deps.db);
    await warm(second, account);
    await stack.deps.db.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${NOTICES_APPLICATION}' and datname = current_database()`,
    );
    await waitFor('the key cache to notice', () => !second.deps.keyCache.isListening, 5_000, 10);
    assert.equal(await keyReadsOf(second, account), 1, 'nothing answered from a cache that may have missed notices');
    await warm(second, account);
    await revokeKey(first.deps.db, account.keyId);
    await answersWithin(second, account.key, (status) => status === 401, VISIBLE_WITHIN_MS);
  });

  it('a change whose notice is lost is seen at the latest after SVC_KEY_CACHE_TTL_MS', async () => {
    const ttlMs = 3_000;
    const short = await stack.withEnv({ SVC_KEY_CACHE_TTL_MS: String(ttlMs) });
    try {
      const account = await createAccount(stack.deps.db);
      await warm(short, account);
      const warmedAt = Date.now();
      // Triggers do not fire for a replica's session: the revocation announces nothing.
      await stack.deps.db.transaction(async (trx) => {
        await trx.raw('set local session_replication_role = replica');
        await trx('api_keys').where({ id: account.keyId }).update({ revoked_at: new Date() });
      });
      assert.equal((await call(short.url, 'GET', '/v1/me', { key: account.key })).status, 200, 'no notice: still cached');
      await answersWithin(short, account.key, (status) => status === 401, ttlMs + 1_000 - (Date.now() - warmedAt));
    } finally {
      await short.close();
    }
  });
});
