// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeEvent } from '../../activities/events/outbox';
import { Delivery, DeliveryAttempt, Event } from '../../db/models';
import { newId } from '../../lib/ids';
import { waitFor } from '../../test/cli';
import { createAccount } from '../../test/factories';
import { account, deliveriesOf, receiver, register, stack, useWebhookStack } from '../../test/fixtures/webhooks';
import { call } from '../../test/http';
import { deliveryWorkflowId } from '../../workflows/webhook/shared';

describe('webhooks', () => {
  useWebhookStack();

  describe('delivery', () => {
    it('makes first attempts from the relay: keep-alive connections, at most SVC_WEBHOOK_CONCURRENCY at once, no workflow for a delivered one', async () => {
      const target = await receiver();
      target.delayMs = 40;
      const { webhook_id } = await register(target.url);
      // One transaction: the relay takes them in one batch.
      const ids = await stack.deps.db.transaction(async (trx) => {
        const emitted: string[] = [];
        for (let i = 0; i < 30; i += 1) emitted.push((await writeEvent(trx, account.tenantId, 'document.signed', { keepalive: i })).id);
        return emitted;
      });
      await waitFor('every event', () => ids.every((id) => target.ofEvent(id).length > 0), 15_000);
      assert.ok(target.maxInFlight <= 4, `${target.maxInFlight} requests at once`);
      assert.ok(target.maxInFlight >= 2, 'attempts to one endpoint run side by side');
      assert.ok(target.connections <= 4, `${target.connections} TLS connections for 30 requests`);
      // The relay records a batch's attempts together once the batch is done, a moment after the receiver answered the last.
      const deliveries = await waitFor(
        'the batch’s attempts to be recorded',
        async () => {
          const rows = await Delivery.query(stack.deps.db).where({ target_id: webhook_id });
          return rows.length === 30 && rows.every((delivery) => delivery.status !== 'pending') && rows;
        },
        15_000,
      );
      for (const delivery of deliveries) {
        assert.equal(delivery.status, 'delivered');
        assert.equal(delivery.attempts, 1);
        assert.ok(delivery.workflow_started_at, 'handed off: the relay will not take it again');
      }
      await assert.rejects(
        stack.deps.temporal.client.workflow.getHandle(deliveryWorkflowId(deliveries[0].id)).describe(),
        (error: Error) => error.name === 'WorkflowNotFoundError',
        'a delivery made on its first attempt starts no workflow',
      );
      const log = await deliveriesOf(webhook_id);
      assert.deepEqual(
        log.body.data[0].attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
        [[1, 200]],
      );
    });

    it('carries its keep-alive connections over from batch to batch, and resumes the TLS session of any it must open again', async () => {
      const target = await receiver();
      await register(target.url);
      const batch = async (tag: string) => {
        const ids = await stack.deps.db.transaction(async (trx) => {
          const emitted: string[] = [];
          for (let i = 0; i < 8; i += 1) emitted.push((await writeEvent(trx, account.tenantId, 'document.signed', { tag, i })).id);
          return emitted;
        });
        await waitFor(`the ${tag} batch`, () => ids.every((id) => target.ofEvent(id).length > 0), 15_000);
      };
      await batch('first');
      const opened = target.connections;
      assert.ok(opened >= 1 && opened <= 4, `${opened} TLS connections for the first batch`);
      await batch('second');
      assert.equal(target.connections, opened, 'the second batch goes over the first batch’s connections: no new handshake');
      target.dropConnections();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await batch('third');
      assert.ok(target.connections > opened, 'connections opened again once the receiver closed them');
      assert.equal(target.resumed, target.connections - opened, 'each of them resumed a TLS session instead of a full handshake');
    });

    it('hands a delivery whose first attempt a crashed relay recorded to a retry workflow, without repeating the attempt', async () => {
      const target = await receiver();
      const { webhook_id } = await register(target.url);
      // What a relay that died after recording a failed first attempt leaves: attempted, not handed off.
      const { eventId, deliveryId } = await stack.deps.db.transaction(async (trx) => {
        const event = await writeEvent(trx, account.tenantId, 'document.signed', { crashed: 'relay' });
        await Event.query(trx).findById(event.id).patch({ dispatched_at: new Date() });
        const delivery = await Delivery.query(trx).insertAndFetch({
          id: newId('dlv'),
          tenant_id: account.tenantId,
          event_id: event.id,
          target_kind: 'webhook',
          target_id: webhook_id,
          url: target.url,
          attempts: 1,
          last_status_code: 500,
          last_error: 'HTTP 500',
        });
        await DeliveryAttempt.query(trx).insert({
          delivery_id: delivery.id,
          attempt: 1,
          started_at: new Date(),
          latency_ms: 3,
          status_code: 500,
          error: 'HTTP 500',
        });
        return { eventId: event.id, deliveryId: delivery.id };
      });
      const result = await stack.deps.temporal.client.workflow
        .getHandle(
          deliveryWorkflowId(
            await waitFor(
              'the retry workflow',
              async () => {
                const row = await Delivery.query(stack.deps.db).findById(deliveryId);
                return row?.workflow_started_at ? deliveryId : undefined;
              },
              15_000,
            ),
          ),
        )
        .result();
      assert.deepEqual(result, { delivered: true, attempts: 2 });
      assert.equal(target.ofEvent(eventId).length, 1);
      const log = await deliveriesOf(webhook_id);
      assert.deepEqual(
        log.body.data[0].attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
        [
          [1, 500],
          [2, 200],
        ],
      );
    });

    it('does not let an endpoint that never answers hold up another endpoint’s first attempts', async () => {
      const owner = await createAccount(stack.deps.db);
      const slow = await receiver();
      slow.delayMs = 60_000;
      const healthy = await receiver();
      for (const target of [slow, healthy]) {
        const created = await call(stack.url, 'POST', '/v1/webhooks', { key: owner.key, body: { url: target.url } });
        assert.equal(created.status, 201, created.text);
      }
      const ids = await stack.deps.db.transaction(async (trx) => {
        const emitted: string[] = [];
        for (let i = 0; i < 10; i += 1) emitted.push((await writeEvent(trx, owner.tenantId, 'document.signed', { slow: i })).id);
        return emitted;
      });
      await waitFor('the healthy endpoint', () => ids.every((id) => healthy.ofEvent(id).length > 0), 15_000);
      const timedOut = await waitFor(
        'the slow endpoint’s first attempts to time out',
        async () => {
          const rows = await DeliveryAttempt.query(stack.deps.db)
            .whereIn('delivery_id', Delivery.query(stack.deps.db).select('id').where({ url: slow.url }))
            .where({ attempt: 1 });
          return rows.length > 0 ? rows : undefined;
        },
        15_000,
      );
      const firstTimeout = Math.min(...timedOut.map((row) => row.started_at.getTime() + row.latency_ms));
      const lastHealthy = Math.max(...healthy.received.map((entry) => entry.at));
      assert.ok(lastHealthy < firstTimeout, 'every healthy delivery arrived before the slow endpoint’s first timeout ended');
      assert.match(timedOut[0].error ?? '', /timed out/);
    });
  });
});
