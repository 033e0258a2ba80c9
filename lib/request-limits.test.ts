import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectDb } from '../db/connect';
import { recordingLogger } from '../test/logs';
import type { LogFields } from './log';
import { createRequestLimits } from './request-limits';

describe('request limits without their database', () => {
  it('count in the process with one warning instead of failing the request', async () => {
    const db = connectDb({ databaseUrl: 'postgres://postgres@127.0.0.1:1/unreachable', dataDir: '/nonexistent' });
    const warnings: Array<[string, LogFields | undefined]> = [];
    try {
      const limits = createRequestLimits(db, { perKey: 2, perIp: 0, windowMs: 60_000 }, recordingLogger(warnings));
      assert.equal((await limits.countKey('key_a'))?.allowed, true);
      assert.equal((await limits.countKey('key_a'))?.remaining, 0);
      const refused = await limits.countKey('key_a');
      assert.equal(refused?.allowed, false);
      assert.ok(refused!.resetMs > 0 && refused!.resetMs <= 60_000);
      assert.equal((await limits.countKey('key_b'))?.allowed, true);
      assert.equal(await limits.countAddress('192.0.2.1'), undefined, 'the address limit is off');
      assert.equal(warnings.length, 1, 'one warning, not one per request');
      assert.match(warnings[0][0], /rate limit counters unreachable/);
    } finally {
      await db.destroy();
    }
  });
});
