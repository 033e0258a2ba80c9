import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Delivery, DeliveryAttempt } from '../../db/models';
import { newId } from '../../lib/ids';
import { createTestDatabase, type TestDatabase } from '../../test/db';
import { createAccount } from '../../test/factories';
import { writeEvent } from '../events/outbox';
import { type AttemptRecord, recordAttempts } from './delivery';
import { createWebhook } from './webhooks';

describe('first attempts are recorded in bulk', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  /** `count` pending deliveries to one webhook, each of an event of its own. */
  async function deliveries(count: number): Promise<string[]> {
    const { tenantId } = await createAccount(database.db);
    const deps = { db: database.db, secret: randomBytes(32), allowedHosts: ['127.0.0.1'] };
    const { webhook } = await createWebhook(deps, tenantId, { url: 'https://127.0.0.1:9/hooks' });
    return database.db.transaction(async (trx) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const event = await writeEvent(trx, tenantId, 'document.signed', { bulk: i });
        const row = await Delivery.query(trx).insert({
          id: newId('dlv'),
          tenant_id: tenantId,
          event_id: event.id,
          target_kind: 'webhook',
          target_id: webhook.id,
          url: webhook.url,
        });
        ids.push(row.id);
      }
      return ids;
    });
  }

  /** Statements the database runs while `work` runs. */
  async function statementsOf(work: () => Promise<void>): Promise<number> {
    let statements = 0;
    const count = () => {
      statements += 1;
    };
    database.db.on('query', count);
    try {
      await work();
    } finally {
      database.db.off('query', count);
    }
    return statements;
  }

  it('writes a round of 1,000 attempts, delivered and failed, in one statement, each exactly once', async () => {
    const ids = await deliveries(1000);
    const startedAt = new Date();
    // Every third answered 200, every third 500, the rest no answer at all (timed out).
    const records: AttemptRecord[] = ids.map((deliveryId, i) => ({
      deliveryId,
      attempt: 1,
      startedAt,
      result: [
        { statusCode: 200, latencyMs: 3 },
        { statusCode: 500, latencyMs: 4 },
        { error: 'timed out after 10000 ms', latencyMs: 10000 },
      ][i % 3],
    }));
    assert.equal(await statementsOf(() => recordAttempts(database.db, records)), 1);
    // The same round recorded again (a retried activity) logs nothing twice and changes no delivery.
    await recordAttempts(database.db, records);

    const attempts = await DeliveryAttempt.query(database.db).whereIn('delivery_id', ids);
    assert.equal(attempts.length, 1000, 'one log line per attempt');
    const byDelivery = new Map(attempts.map((line) => [line.delivery_id, line]));
    const rows = new Map((await Delivery.query(database.db).whereIn('id', ids)).map((row) => [row.id, row]));
    ids.forEach((id, i) => {
      const line = byDelivery.get(id)!;
      const delivery = rows.get(id)!;
      assert.equal(line.attempt, 1);
      assert.equal(delivery.attempts, 1);
      if (i % 3 === 0) {
        assert.deepEqual([line.status_code, line.error, line.latency_ms], [200, null, 3]);
        assert.equal(delivery.status, 'delivered');
        assert.ok(delivery.delivered_at && delivery.workflow_started_at, 'a delivered one needs no retry workflow');
      } else if (i % 3 === 1) {
        assert.deepEqual([line.status_code, line.error], [500, 'HTTP 500']);
        assert.deepEqual([delivery.status, delivery.last_status_code, delivery.last_error], ['pending', 500, 'HTTP 500']);
        assert.equal(delivery.workflow_started_at, null, 'a failed one waits for its retry workflow');
      } else {
        assert.deepEqual([line.status_code, line.error, line.latency_ms], [null, 'timed out after 10000 ms', 10000]);
        assert.deepEqual([delivery.status, delivery.last_error], ['pending', 'timed out after 10000 ms']);
      }
      assert.equal(line.started_at.getTime(), startedAt.getTime());
    });
  });

  it('logs a retry workflow’s later attempt beside the relay’s first', async () => {
    const [id] = await deliveries(1);
    const startedAt = new Date();
    await recordAttempts(database.db, [{ deliveryId: id, attempt: 1, startedAt, result: { statusCode: 503, latencyMs: 2 } }]);
    await recordAttempts(database.db, [{ deliveryId: id, attempt: 2, startedAt, result: { statusCode: 204, latencyMs: 2 } }]);
    const lines = await DeliveryAttempt.query(database.db).where({ delivery_id: id }).orderBy('attempt');
    assert.deepEqual(
      lines.map((line) => [line.attempt, line.status_code]),
      [
        [1, 503],
        [2, 204],
      ],
    );
    const delivery = await Delivery.query(database.db).findById(id);
    assert.deepEqual([delivery?.status, delivery?.attempts, delivery?.last_status_code], ['delivered', 2, 204]);
  });
});
