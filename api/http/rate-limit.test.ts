import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectDb } from '../../db/connect';
import { ConfigError, loadConfig } from '../../lib/config/config';
import type { LogFields } from '../../lib/log';
import { addressKey, createRequestLimits } from '../../lib/request-limits';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { recordingLogger } from '../../test/logs';
import { queriesDuring } from '../../test/queries';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

/** A request from a client address (the stack trusts X-Forwarded-For, as behind a proxy). */
function from(ip: string, url: string, path: string, key?: string): Promise<Reply> {
  return call(url, 'GET', path, { key, headers: { 'x-forwarded-for': ip } });
}

function limitHeaders(reply: Reply) {
  return {
    limit: reply.headers.get('x-ratelimit-limit'),
    remaining: reply.headers.get('x-ratelimit-remaining'),
    reset: reply.headers.get('x-ratelimit-reset'),
  };
}

/** 429 `rate_limited` naming the limit, with Retry-After within the window and nothing remaining. */
function assertRefused(reply: Reply, limit: 'requests_per_key' | 'requests_per_address', windowS = 60): void {
  assertErrorCode(reply, 429, 'rate_limited');
  assert.equal(reply.body.error.details?.[0]?.path, limit, reply.text);
  const retryAfter = Number(reply.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowS, `Retry-After ${retryAfter}`);
  assert.equal(reply.headers.get('x-ratelimit-remaining'), '0');
}

describe('general request limits: 3 per key, 2 per address, per minute', () => {
  let stack: Stack;
  let account: Account;

  before(async () => {
    stack = await startStack({
      worker: false,
      env: { SVC_RATE_LIMIT_PER_KEY: '3', SVC_RATE_LIMIT_PER_IP: '2', SVC_TRUST_PROXY: 'true' },
    });
    account = await createAccount(stack.deps.db);
  });
  after(() => stack.close());

  it('counts a key’s requests in X-RateLimit-*; the 4th in the window is 429 rate_limited with Retry-After, also from another address', async () => {
    // The window starts with the key's first request: its end lies 60 s after some moment while that request was on its way.
    let window: { from: number; to: number } | undefined;
    for (const remaining of ['2', '1', '0']) {
      const sent = Date.now();
      const reply = await from('198.51.100.1', stack.url, '/v1/me', account.key);
      window ??= { from: Math.floor(sent / 1000) + 60, to: Math.ceil(Date.now() / 1000) + 60 };
      assert.equal(reply.status, 200, reply.text);
      const headers = limitHeaders(reply);
      assert.equal(headers.limit, '3');
      assert.equal(headers.remaining, remaining);
      const reset = Number(headers.reset);
      assert.ok(
        reset >= window.from && reset <= window.to,
        `X-RateLimit-Reset ${reset} is the window's end in Unix seconds (${window.from}..${window.to})`,
      );
    }
    const refused = await from('198.51.100.1', stack.url, '/v1/me', account.key);
    assertRefused(refused, 'requests_per_key');
    assert.match(refused.body.error.message, /this API key: at most 3 requests per minute/);
    assert.equal(refused.body.error.details[0].message, 'at most 3 requests per minute');
    // Refused again, whatever address the key comes from, and from memory: no statement on the counters.
    const seen: string[] = [];
    const listener = (query: { sql: string }) => seen.push(query.sql);
    stack.deps.db.on('query', listener);
    try {
      assertRefused(await from('198.51.100.2', stack.url, '/v1/me', account.key), 'requests_per_key');
    } finally {
      stack.deps.db.off('query', listener);
    }
    assert.deepEqual(
      seen.filter((sql) => /request_limits/.test(sql)),
      [],
    );
    assertRefused(await call(stack.url, 'POST', '/v1/documents', { key: account.key, body: {} }), 'requests_per_key');
  });

  it('keeps a counter per key: another key of the same principal’s tenant is not affected', async () => {
    const other = await createAccount(stack.deps.db);
    const reply = await from('198.51.100.1', stack.url, '/v1/me', other.key);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(limitHeaders(reply).remaining, '2');
  });

  it('counts requests without a valid key per address: pages, public endpoints, unknown keys; a valid key from there still passes', async () => {
    const ip = '203.0.113.7';
    const first = await from(ip, stack.url, '/docs/errors');
    assert.equal(first.status, 200);
    assert.equal(limitHeaders(first).limit, '2');
    assert.equal(limitHeaders(first).remaining, '1');
    const unknownKey = await from(ip, stack.url, '/v1/me', `svc_${'x'.repeat(32)}`);
    assertErrorCode(unknownKey, 401, 'unauthorized');
    assert.equal(limitHeaders(unknownKey).remaining, '0');
    const refused = await from(ip, stack.url, `${new URL(stack.config.appUrl).pathname}/login`);
    assertRefused(refused, 'requests_per_address');
    assert.match(refused.body.error.message, /from your address: at most 2 requests per minute without an API key/);
    assertRefused(await from(ip, stack.url, '/v1/public/transfers/unknown-token'), 'requests_per_address');
    assertRefused(await from(ip, stack.url, '/v1/me', 'not-a-key'), 'requests_per_address');

    const keyed = await from(ip, stack.url, '/v1/me', (await createAccount(stack.deps.db)).key);
    assert.equal(keyed.status, 200, 'a valid key counts against the key, not the address');
    assert.equal(limitHeaders(keyed).limit, '3');

    const elsewhere = await from('203.0.113.8', stack.url, '/v1/public/transfers/unknown-token');
    assert.notEqual(elsewhere.status, 429);
    assert.equal(limitHeaders(elsewhere).remaining, '1', 'another address has its own counter');
  });

  it('counts the address the proxy saw, not addresses a client wrote into X-Forwarded-For before it', async () => {
    const spoofed = (n: number) =>
      call(stack.url, 'GET', '/v1/openapi.json', { headers: { 'x-forwarded-for': `198.51.100.${n}, 203.0.113.77` } });
    assert.equal((await spoofed(1)).status, 200);
    assert.equal((await spoofed(2)).status, 200);
    assertRefused(await spoofed(3), 'requests_per_address');
  });

  it('counts an IPv6 client per /64', async () => {
    assert.equal(addressKey('2001:db8:aa:bb:1::1'), '2001:db8:aa:bb::/64');
    assert.equal(addressKey('2001:0db8:00aa:00bb:ffff:1:2:3'), '2001:db8:aa:bb::/64');
    assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(addressKey('not an address'), 'unknown');
    assert.equal(limitHeaders(await from('2001:db8:aa:bb::1', stack.url, '/docs/errors')).remaining, '1');
    assert.equal(limitHeaders(await from('2001:db8:aa:bb:9:8:7:6', stack.url, '/docs/errors')).remaining, '0', 'the same /64');
    assertRefused(await from('2001:db8:aa:bb:ffff::', stack.url, '/docs/errors'), 'requests_per_address');
    assert.equal(limitHeaders(await from('2001:db8:aa:bc::1', stack.url, '/docs/errors')).remaining, '1', 'the next /64');
  });

  it('never counts health, metrics or static files', async () => {
    const ip = '203.0.113.9';
    for (let round = 0; round < 4; round += 1) {
      const health = await from(ip, stack.url, '/v1/health');
      assert.notEqual(health.status, 429);
      assert.equal(limitHeaders(health).limit, null);
      assert.equal(limitHeaders(await from(ip, stack.url, '/static/none.js')).limit, null);
    }
    assert.equal(limitHeaders(await from(ip, stack.url, '/docs/errors')).remaining, '1', 'none of them was counted');
  });

  it('is shared by every API process on the database', async () => {
    const second = await stack.withEnv({});
    try {
      const shared = await createAccount(stack.deps.db);
      assert.equal(limitHeaders(await call(stack.url, 'GET', '/v1/me', { key: shared.key })).remaining, '2');
      assert.equal(limitHeaders(await call(second.url, 'GET', '/v1/me', { key: shared.key })).remaining, '1');
      assert.equal(limitHeaders(await call(stack.url, 'GET', '/v1/me', { key: shared.key })).remaining, '0');
      assertRefused(await call(second.url, 'GET', '/v1/me', { key: shared.key }), 'requests_per_key');
      assertRefused(await call(stack.url, 'GET', '/v1/me', { key: shared.key }), 'requests_per_key');
    } finally {
      await second.close();
    }
  });

  it('lets a refused key in again once its window ends (SVC_RATE_LIMIT_WINDOW_MS)', async () => {
    const short = await stack.withEnv({ SVC_RATE_LIMIT_WINDOW_MS: '2000' });
    try {
      const key = (await createAccount(stack.deps.db)).key;
      for (let n = 0; n < 3; n += 1) assert.equal((await call(short.url, 'GET', '/v1/me', { key })).status, 200);
      const refused = await call(short.url, 'GET', '/v1/me', { key });
      assertRefused(refused, 'requests_per_key', 2);
      assert.match(refused.body.error.message, /at most 3 requests per 2 seconds/);
      await sleep(Number(refused.headers.get('retry-after')) * 1000 + 100);
      const again = await call(short.url, 'GET', '/v1/me', { key });
      assert.equal(again.status, 200, again.text);
      assert.equal(limitHeaders(again).remaining, '2');
    } finally {
      await short.close();
    }
  });

  it('turns a limit off with 0', async () => {
    const keysOff = await stack.withEnv({ SVC_RATE_LIMIT_PER_KEY: '0' });
    const allOff = await stack.withEnv({ SVC_RATE_LIMIT_PER_KEY: '0', SVC_RATE_LIMIT_PER_IP: '0' });
    try {
      const key = (await createAccount(stack.deps.db)).key;
      for (let n = 0; n < 5; n += 1) {
        const reply = await from('192.0.2.50', keysOff.url, '/v1/me', key);
        assert.equal(reply.status, 200, reply.text);
        assert.equal(limitHeaders(reply).limit, null);
      }
      assert.equal(limitHeaders(await from('192.0.2.50', keysOff.url, '/docs/errors')).remaining, '1', 'the address limit still counts');
      for (let n = 0; n < 5; n += 1) {
        const reply = await from('192.0.2.51', allOff.url, '/docs/errors');
        assert.equal(reply.status, 200);
        assert.equal(limitHeaders(reply).limit, null);
      }
    } finally {
      await keysOff.close();
      await allOff.close();
    }
  });

  it('looks the key up once per request, and writes only its counter', async () => {
    const fresh = await createAccount(stack.deps.db);
    const seen = await queriesDuring(stack.deps.db, async () => {
      assert.equal((await call(stack.url, 'GET', '/v1/me', { key: fresh.key })).status, 200);
    });
    assert.equal(seen.filter((sql) => /from "api_keys"/.test(sql)).length, 1, seen.join('\n'));
    const writes = seen.filter((sql) => /^\s*(insert|update|delete)\b/i.test(sql));
    assert.equal(writes.length, 1, writes.join('\n'));
    assert.match(writes[0], /insert into "request_limits"/i);
  });

  it('let the counts of their last moment go, without a warning, once the process closed its pool (a stop)', async () => {
    const db = connectDb({ databaseUrl: stack.config.databaseUrl, dataDir: stack.config.dataDir });
    const warnings: Array<[string, LogFields | undefined]> = [];
    const limits = createRequestLimits(db, { perKey: 1000, perIp: 0, windowMs: 60_000, syncMs: 50 }, recordingLogger(warnings));
    assert.equal((await limits.countKey('key_stopping'))?.allowed, true); // read and counted on its row
    assert.equal((await limits.countKey('key_stopping'))?.allowed, true); // counted in memory, written at the next sync
    await db.destroy();
    await sleep(300);
    assert.deepEqual(warnings, []);
  });

  it('documents 429 rate_limited and the X-RateLimit-* headers in OpenAPI; health’s own 429 has Retry-After only', async () => {
    const document = (await call(stack.url, 'GET', '/v1/openapi.json')).body;
    const me = document.paths['/v1/me'].get.responses['429'];
    assert.match(me.description, /`rate_limited`/);
    assert.deepEqual(Object.keys(me.headers), ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']);
    assert.ok(document.components.headers['X-RateLimit-Reset']);
    assert.deepEqual(Object.keys(document.paths['/v1/health'].get.responses['429'].headers), ['Retry-After']);
    assert.equal(document.paths['/v1/health'].get.responses['200'].headers, undefined);
  });
});

describe('SVC_RATE_LIMIT_* settings', () => {
  it('default to 600 per key and 300 per address per minute; 0 is off; a negative count is refused', () => {
    assert.deepEqual(loadConfig({}).rateLimits, { perKey: 600, perIp: 300, windowMs: 60_000 });
    assert.deepEqual(loadConfig({ SVC_RATE_LIMIT_PER_KEY: '0', SVC_RATE_LIMIT_PER_IP: '0' }).rateLimits, {
      perKey: 0,
      perIp: 0,
      windowMs: 60_000,
    });
    assert.throws(
      () => loadConfig({ SVC_RATE_LIMIT_PER_IP: '-1' }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /SVC_RATE_LIMIT_PER_IP/);
        return true;
      },
    );
    assert.throws(() => loadConfig({ SVC_RATE_LIMIT_WINDOW_MS: '10' }), /SVC_RATE_LIMIT_WINDOW_MS/);
  });
});

describe('general request limits at 100 per key: counted in memory, reconciled with the shared row', () => {
  let stack: Stack;
  const syncMs = 300;

  before(async () => {
    stack = await startStack({
      worker: false,
      env: { SVC_RATE_LIMIT_PER_KEY: '100', SVC_RATE_LIMIT_PER_IP: '0', SVC_RATE_LIMIT_SYNC_MS: String(syncMs) },
    });
  });
  after(() => stack.close());

  /** The points the shared row of a key holds. */
  async function rowOf(keyId: string): Promise<number> {
    const row = await stack.deps
      .db('request_limits')
      .where({ key: `requests_per_key:${keyId}` })
      .first();
    return Number(row?.points ?? 0);
  }

  it('writes the counter in the background, not per request, and refuses one process exactly at the limit', async () => {
    const account = await createAccount(stack.deps.db);
    const writes: string[] = [];
    const listener = (query: { sql: string }) => {
      if (/request_limits/i.test(query.sql)) writes.push(query.sql);
    };
    stack.deps.db.on('query', listener);
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 20; i += 1) statuses.push((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status);
      assert.ok(writes.length < 10, `${writes.length} counter writes for 20 requests`);
      for (let i = 20; i < 102; i += 1) statuses.push((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status);
    } finally {
      stack.deps.db.off('query', listener);
    }
    const allowed = statuses.filter((status) => status === 200).length;
    assert.equal(allowed, 100, statuses.join(','));
    assert.deepEqual(statuses.slice(allowed), [429, 429], 'refused from the first refusal on');
    await waitFor('the counts written', async () => (await rowOf(account.keyId)) >= 100, 5_000, 50);
  });

  it('two API processes share it: each refuses within one reconciliation of the other using up the limit', async () => {
    const second = await stack.withEnv({
      SVC_RATE_LIMIT_PER_KEY: '100',
      SVC_RATE_LIMIT_PER_IP: '0',
      SVC_RATE_LIMIT_SYNC_MS: String(syncMs),
    });
    try {
      const account = await createAccount(stack.deps.db);
      const get = (url: string) => call(url, 'GET', '/v1/me', { key: account.key });
      for (let i = 0; i < 5; i += 1) assert.equal((await get(second.url)).status, 200);
      await waitFor('the second process’s counts written', async () => (await rowOf(account.keyId)) === 5, 5_000, 20);
      // The first process reads the row with the key's first request there: it admits what is left, and no more.
      let admitted = 0;
      for (;;) {
        const reply = await get(stack.url);
        if (reply.status !== 200) {
          assertRefused(reply, 'requests_per_key');
          break;
        }
        admitted += 1;
        assert.ok(admitted <= 95, 'never past the limit');
      }
      assert.equal(admitted, 95, 'the 5 counted by the other process are left out');
      // The second still counts from its own view until its next reconciliation brings the first's counts.
      const exhaustedAt = Date.now();
      for (;;) {
        const reply = await get(second.url);
        if (reply.status === 429) break;
        assert.ok(Date.now() - exhaustedAt <= syncMs + 1_500, `still ${reply.status} ${Date.now() - exhaustedAt} ms after`);
        await sleep(20);
      }
      assertRefused(await get(second.url), 'requests_per_key');
      assertRefused(await get(stack.url), 'requests_per_key');
    } finally {
      await second.close();
    }
  });
});
