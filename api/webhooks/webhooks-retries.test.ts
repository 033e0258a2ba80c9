import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeEvent } from '../../activities/events/outbox';
import { Delivery, Webhook } from '../../db/models';
import { waitFor } from '../../test/cli';
import { createAccount } from '../../test/factories';
import { account, deliveriesOf, emit, receiver, register, stack, tls, useWebhookStack } from '../../test/fixtures/webhooks';
import { call } from '../../test/http';
import { startStack } from '../../test/stack';

describe('webhooks', () => {
  useWebhookStack();

  describe('delivery', () => {
    it('retries after 500s, recording each attempt, until a 2xx', async () => {
      const target = await receiver();
      let calls = 0;
      target.respond = () => (++calls <= 2 ? 500 : 200);
      const { webhook_id } = await register(target.url);
      const eventId = await emit('document.signed', { retry: 'five-hundreds' });
      await waitFor('the third attempt', () => target.ofEvent(eventId).length > 0, 15_000);
      const log = await waitFor(
        'the log',
        async () => {
          const reply = await deliveriesOf(webhook_id);
          return reply.body.data[0]?.status === 'delivered' ? reply : undefined;
        },
        5000,
      );
      assert.deepEqual(
        log.body.data[0].attempts.map((a: { status_code: number }) => a.status_code),
        [500, 500, 200],
      );
      assert.equal(log.body.data[0].attempts[0].error, 'HTTP 500');
      assert.ok(log.body.data[0].attempts.every((a: { latency_ms: number }) => a.latency_ms >= 0));
    });

    it('retries after a refused connection', async () => {
      const target = await receiver();
      const { webhook_id } = await register(target.url);
      await target.stop();
      const eventId = await emit('document.signed', { retry: 'refused' });
      await waitFor('a failed attempt', async () => (await deliveriesOf(webhook_id)).body.data[0]?.attempts.length > 0, 15_000);
      await target.start();
      await waitFor('the delivery once back', () => target.ofEvent(eventId).length > 0, 15_000);
      const log = await waitFor(
        'the log',
        async () => {
          const reply = await deliveriesOf(webhook_id);
          return reply.body.data[0]?.status === 'delivered' ? reply : undefined;
        },
        5000,
      );
      assert.match(log.body.data[0].attempts[0].error, /ECONNREFUSED/);
    });

    it('gives up after the last attempt within the retry window', async () => {
      // Its own stack: a retry window of seconds, where the other tests need a long one.
      const short = await startStack({
        env: {
          SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
          SVC_WEBHOOK_CA_FILE: tls.caFile,
          SVC_WEBHOOK_TIMEOUT_MS: '2000',
          SVC_WEBHOOK_GIVE_UP_MS: '3000',
          SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
          SVC_WEBHOOK_RETRY_MAX_MS: '800',
          SVC_OUTBOX_POLL_MS: '100',
        },
      });
      try {
        const owner = await createAccount(short.deps.db);
        const target = await receiver();
        target.respond = () => 503;
        const created = await call(short.url, 'POST', '/v1/webhooks', { key: owner.key, body: { url: target.url } });
        const eventId = await short.deps.db.transaction(
          async (trx) => (await writeEvent(trx, owner.tenantId, 'document.signed', { retry: 'never' })).id,
        );
        const log = await waitFor(
          'giving up',
          async () => {
            const reply = await call(short.url, 'GET', `/v1/webhooks/${created.body.webhook_id}/deliveries`, { key: owner.key });
            return reply.body.data[0]?.status === 'failed' ? reply : undefined;
          },
          30_000,
        );
        const attempts = log.body.data[0].attempts;
        assert.ok(attempts.length >= 2 && attempts.length <= 6, `${attempts.length} attempts`);
        assert.ok(attempts.every((a: { status_code: number }) => a.status_code === 503));
        assert.ok(log.body.data[0].failed_at);
        assert.equal(target.ofEvent(eventId).length, 0);
      } finally {
        await short.close();
      }
    });

    it('does not follow a redirect: a 3xx is a failed attempt', async () => {
      const elsewhere = await receiver();
      const target = await receiver();
      target.respond = () => 302;
      target.redirectTo = elsewhere.url;
      const { webhook_id } = await register(target.url);
      const eventId = await emit('document.signed', { redirect: true });
      const log = await waitFor(
        'two attempts',
        async () => {
          const reply = await deliveriesOf(webhook_id);
          return reply.body.data[0]?.attempts.length >= 2 ? reply : undefined;
        },
        15_000,
      );
      assert.deepEqual(
        log.body.data[0].attempts.slice(0, 2).map((a: { status_code: number; error: string }) => [a.status_code, a.error]),
        [
          [302, 'HTTP 302'],
          [302, 'HTTP 302'],
        ],
      );
      assert.equal(log.body.data[0].status, 'pending');
      assert.equal(elsewhere.received.length, 0, 'the redirect target got nothing');
      assert.equal(target.ofEvent(eventId).length, 0);
      target.respond = () => 200;
      await waitFor('the delivery once the endpoint answers 200', () => target.ofEvent(eventId).length > 0, 15_000);
    });

    it('ends an attempt at the timeout and retries', async () => {
      const target = await receiver();
      // The receiver would answer long after the 2 s timeout: the attempt is logged as cut at the timeout.
      target.delayMs = 10_000;
      const { webhook_id } = await register(target.url);
      await emit('document.signed', { slow: true });
      const log = await waitFor(
        'a timed-out attempt',
        async () => {
          const reply = await deliveriesOf(webhook_id);
          return reply.body.data[0]?.attempts.length ? reply : undefined;
        },
        15_000,
      );
      const [first] = log.body.data[0].attempts;
      assert.match(first.error, /timed out after 2000 ms/);
      assert.equal(first.status_code, null);
      assert.ok(first.latency_ms >= 1900 && first.latency_ms < 10_000, `latency ${first.latency_ms}`);
      target.delayMs = 0;
    });

    it('gives a receiver that was down every event once it is back: none lost, each id once', async () => {
      const target = await receiver();
      const { webhook_id } = await register(target.url);
      await target.stop();
      const ids: string[] = [];
      for (let i = 0; i < 20; i += 1) ids.push(await emit('document.signed', { batch: i }));
      await waitFor(
        'first attempts to fail',
        async () => (await Delivery.query(stack.deps.db).where({ target_id: webhook_id }).where('attempts', '>', 0)).length >= 10,
        15_000,
      );
      await target.start();
      await waitFor('every event', () => ids.every((id) => target.ofEvent(id).length > 0), 45_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const id of ids) assert.equal(target.ofEvent(id).length, 1, `event ${id} arrived ${target.ofEvent(id).length} times`);
      assert.equal(target.received.length, 20);
    });

    it('stops delivering to a deleted webhook', async () => {
      const target = await receiver();
      target.respond = () => 500;
      const { webhook_id } = await register(target.url);
      const eventId = await emit('document.signed', { deleted: true });
      await waitFor(
        'an attempt',
        async () => (await Delivery.query(stack.deps.db).findOne({ target_id: webhook_id, event_id: eventId }))?.attempts,
        15_000,
      );
      await call(stack.url, 'DELETE', `/v1/webhooks/${webhook_id}`, { key: account.key });
      target.respond = () => 200;
      const delivery = await waitFor(
        'the delivery to stop',
        async () => {
          const row = await Delivery.query(stack.deps.db).findOne({ target_id: webhook_id, event_id: eventId });
          return row?.status === 'failed' ? row : undefined;
        },
        15_000,
      );
      assert.equal(delivery.last_error, 'the webhook was deleted');
      assert.equal(target.ofEvent(eventId).length, 0);
      assert.ok((await Webhook.query(stack.deps.db).findById(webhook_id))?.deleted_at);
    });
  });
});
