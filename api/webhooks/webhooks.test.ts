import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EventName, writeEvent } from '../../activities/events/outbox';
import { Delivery, DeliveryAttempt, Event, Webhook } from '../../db/models';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { waitFor } from '../../test/cli';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { documentedVerifier, Receiver, selfSignedCertificate, type Verify } from '../../test/receiver';
import { type Stack, startStack } from '../../test/stack';
import { deliveryWorkflowId } from '../../workflows/webhook/shared';

describe('webhooks', () => {
  let stack: Stack;
  let account: Account;
  let tls: ReturnType<typeof selfSignedCertificate>;
  let verify: Verify;
  const receivers: Receiver[] = [];

  before(async () => {
    tls = selfSignedCertificate();
    verify = await documentedVerifier();
    stack = await startStack({
      env: {
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
        SVC_WEBHOOK_RETRY_MAX_MS: '800',
        SVC_WEBHOOK_GIVE_UP_MS: '120000',
        SVC_WEBHOOK_TIMEOUT_MS: '2000',
        SVC_OUTBOX_POLL_MS: '100',
        SVC_WEBHOOK_CONCURRENCY: '4',
      },
    });
    account = await createAccount(stack.deps.db);
  });
  after(async () => {
    for (const receiver of receivers) await receiver.stop();
    await stack.close();
  });

  async function receiver(): Promise<Receiver> {
    const started = await new Receiver(tls).start();
    receivers.push(started);
    return started;
  }

  async function register(url: string, body: Record<string, unknown> = {}, owner = account) {
    const reply = await call(stack.url, 'POST', '/v1/webhooks', { key: owner.key, body: { url, ...body } });
    assert.equal(reply.status, 201, reply.text);
    return reply.body as { webhook_id: string; secret: string };
  }

  async function emit(event: EventName, data: Record<string, unknown>, tenantId = account.tenantId): Promise<string> {
    return stack.deps.db.transaction(async (trx) => (await writeEvent(trx, tenantId, event, data)).id);
  }

  const deliveriesOf = (webhookId: string) => call(stack.url, 'GET', `/v1/webhooks/${webhookId}/deliveries`, { key: account.key });

  describe('registration', () => {
    it('answers the secret once, stores it encrypted, lists and deletes', async () => {
      const created = await register('https://127.0.0.1:9/hooks', { events: ['document.signed'], description: 'mine' });
      assert.match(created.secret, /^whsec_[0-9A-Za-z]{32}$/);
      assert.match(created.webhook_id, /^wh_/);
      const row = await stack.deps.db('webhooks').where({ id: created.webhook_id }).first();
      assert.ok(!JSON.stringify(row).includes(created.secret.slice(6)), 'the secret is not stored in the clear');
      const list = await call(stack.url, 'GET', '/v1/webhooks', { key: account.key });
      const listed = list.body.data.find((w: { webhook_id: string }) => w.webhook_id === created.webhook_id);
      assert.deepEqual(listed.events, ['document.signed']);
      assert.equal(listed.secret, undefined);
      assert.ok(!list.text.includes(created.secret));
      const deleted = await call(stack.url, 'DELETE', `/v1/webhooks/${created.webhook_id}`, { key: account.key });
      assert.equal(deleted.status, 200);
      assert.ok(
        !(await call(stack.url, 'GET', '/v1/webhooks', { key: account.key })).body.data.some(
          (w: { webhook_id: string }) => w.webhook_id === created.webhook_id,
        ),
      );
    });

    it('refuses http, credentials in the URL and unknown events, naming the field', async () => {
      for (const [body, field] of [
        [{ url: 'http://127.0.0.1/hooks' }, 'url'],
        [{ url: 'https://user:pass@127.0.0.1/hooks' }, 'url'],
        [{ url: 'not a url' }, 'url'],
        [{ url: 'https://127.0.0.1/hooks', events: ['document.exploded'] }, 'events'],
      ] as const) {
        const reply = await call(stack.url, 'POST', '/v1/webhooks', { key: account.key, body });
        assert.equal(reply.status, 400, JSON.stringify(body));
        assert.equal(reply.body.error.details[0].path, field);
      }
    });

    it('refuses loopback, private and link-local targets, including a name that resolves to loopback (its address only in the server log)', async () => {
      const lines: string[] = [];
      const strict = await stack.withEnv({ SVC_WEBHOOK_ALLOWED_HOSTS: '' }, { log: createLogger('info', {}, (line) => lines.push(line)) });
      try {
        for (const url of [
          'https://127.0.0.1/hooks',
          'https://10.1.2.3/hooks',
          'https://169.254.169.254/latest/meta-data',
          'https://192.168.0.10/hooks',
          'https://[::1]/hooks',
          'https://[::ffff:127.0.0.1]/hooks',
          'https://localhost/hooks',
          'https://100.64.0.1/hooks',
        ]) {
          const reply = await call(strict.url, 'POST', '/v1/webhooks', { key: account.key, body: { url } });
          assert.equal(reply.status, 400, `${url}: ${reply.text}`);
          assert.match(reply.body.error.message, /not a public https URL|does not resolve/, url);
          // Which private address a name resolves to is for the server log only.
          assert.doesNotMatch(reply.body.error.message, /127\.0\.0\.1|::1|loopback/, url);
        }
        const refused = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request refused' && line.host === 'localhost');
        assert.match(String(refused?.address), /^(127\.0\.0\.1|::1)$/, 'the server log names the address localhost resolved to');
        assert.match(String(refused?.reason), /loopback/);
      } finally {
        await strict.close();
      }
    });

    it('refuses IPv6 forms that embed a private IPv4 address, and site-local IPv6', async () => {
      const strict = await stack.withEnv({ SVC_WEBHOOK_ALLOWED_HOSTS: '' });
      try {
        for (const url of [
          'https://[::ffff:7f00:1]/',
          'https://[::127.0.0.1]/',
          'https://[64:ff9b::a00:1]/',
          'https://[2002:7f00:1::]/',
          'https://[fec0::1]/',
          'https://[2001::1]/',
        ]) {
          const reply = await call(strict.url, 'POST', '/v1/webhooks', { key: account.key, body: { url } });
          assert.equal(reply.status, 400, `${url}: ${reply.text}`);
          assert.equal(reply.body.error.code, 'invalid_request');
          assert.equal(reply.body.error.details[0].path, 'url');
          assert.match(reply.body.error.message, /not a public https URL/, url);
        }
      } finally {
        await strict.close();
      }
    });

    it('answers 404 for another tenant’s webhook', async () => {
      const created = await register('https://127.0.0.1:9/hooks');
      const stranger = await createAccount(stack.deps.db);
      for (const [method, route] of [
        ['DELETE', `/v1/webhooks/${created.webhook_id}`],
        ['GET', `/v1/webhooks/${created.webhook_id}/deliveries`],
        ['POST', `/v1/webhooks/${created.webhook_id}/rotate-secret`],
      ]) {
        const reply = await call(stack.url, method, route, { key: stranger.key, body: method === 'POST' ? {} : undefined });
        assert.equal(reply.status, 404, `${method} ${route}`);
      }
      assert.equal((await call(stack.url, 'GET', '/v1/webhooks', { key: stranger.key })).body.data.length, 0);
    });
  });

  describe('delivery', () => {
    it('posts the event with a signature the documented verifier accepts, and rejects when tampered or stale', async () => {
      const target = await receiver();
      const { webhook_id, secret } = await register(target.url);
      const eventId = await emit('document.signed', { document_id: 'doc_x', note: 'hello' });
      const [got] = await waitFor('the delivery', () => (target.ofEvent(eventId).length ? target.ofEvent(eventId) : undefined), 15_000);
      const signature = String(got.headers['x-webhook-signature']);
      assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.deepEqual(JSON.parse(got.body), {
        id: eventId,
        event: 'document.signed',
        created_at: JSON.parse(got.body).created_at,
        data: { document_id: 'doc_x', note: 'hello' },
      });
      assert.equal(verify(secret, signature, got.body), true);
      assert.equal(verify(secret, signature, got.body.replace('hello', 'hellO')), false, 'a tampered body fails');
      assert.equal(verify('whsec_wrong', signature, got.body), false, 'another secret fails');
      const timestamp = Number(/t=(\d+)/.exec(signature)![1]);
      assert.equal(verify(secret, signature, got.body, 300, timestamp + 301), false, 'a stale timestamp fails');
      const log = await deliveriesOf(webhook_id);
      assert.equal(log.body.data[0].status, 'delivered');
      assert.equal(log.body.data[0].attempts[0].status_code, 200);
    });

    it('delivers only the events a webhook subscribes to, and only its own tenant’s', async () => {
      const target = await receiver();
      await register(target.url, { events: ['document.completed'] });
      const other = await createAccount(stack.deps.db);
      const skipped = await emit('document.signed', { n: 1 });
      const foreign = await emit('document.completed', { n: 2 }, other.tenantId);
      const wanted = await emit('document.completed', { n: 3 });
      await waitFor('the subscribed event', () => target.ofEvent(wanted).length > 0, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(target.ofEvent(skipped).length, 0);
      assert.equal(target.ofEvent(foreign).length, 0);
    });

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
      target.delayMs = 3000;
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
      assert.ok(first.latency_ms >= 1900 && first.latency_ms < 3000, `latency ${first.latency_ms}`);
      target.delayMs = 0;
    });

    it('refuses at delivery a host that resolves to loopback and is not allowed', async () => {
      const target = await receiver();
      const lenient = await stack.withEnv({ SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost' });
      let webhookId: string;
      try {
        const reply = await call(lenient.url, 'POST', '/v1/webhooks', {
          key: account.key,
          body: { url: `https://localhost:${target.port}/hooks` },
        });
        assert.equal(reply.status, 201, reply.text);
        webhookId = reply.body.webhook_id;
      } finally {
        await lenient.close();
      }
      await emit('document.signed', { ssrf: 'at delivery' });
      const log = await waitFor(
        'a refused attempt',
        async () => {
          const reply = await deliveriesOf(webhookId);
          return reply.body.data[0]?.attempts.length ? reply : undefined;
        },
        15_000,
      );
      assert.match(log.body.data[0].attempts[0].error, /^refused: The URL is not a public https URL/);
      assert.doesNotMatch(log.body.data[0].attempts[0].error, /127\.0\.0\.1|loopback/);
      assert.equal(target.received.length, 0);
    });

    it('signs with both secrets while a rotation overlaps, then with the new one only', async () => {
      const target = await receiver();
      const { webhook_id, secret: old } = await register(target.url);
      const rotated = await call(stack.url, 'POST', `/v1/webhooks/${webhook_id}/rotate-secret`, { key: account.key, body: {} });
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.body.secret, old);
      assert.ok(rotated.body.previous_secret_expires_at);
      const during = await emit('document.signed', { rotation: 'overlap' });
      const [overlapping] = await waitFor(
        'the overlapping delivery',
        () => (target.ofEvent(during).length ? target.ofEvent(during) : undefined),
        15_000,
      );
      const header = String(overlapping.headers['x-webhook-signature']);
      assert.equal(header.match(/v1=/g)?.length, 2);
      assert.equal(verify(old, header, overlapping.body), true);
      assert.equal(verify(rotated.body.secret, header, overlapping.body), true);

      const final = await call(stack.url, 'POST', `/v1/webhooks/${webhook_id}/rotate-secret`, {
        key: account.key,
        body: { overlap_seconds: 0 },
      });
      const later = await emit('document.signed', { rotation: 'done' });
      const [after] = await waitFor('the later delivery', () => (target.ofEvent(later).length ? target.ofEvent(later) : undefined), 15_000);
      const laterHeader = String(after.headers['x-webhook-signature']);
      assert.equal(verify(final.body.secret, laterHeader, after.body), true);
      assert.equal(verify(rotated.body.secret, laterHeader, after.body), false);
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

    it('delivers what the service emits: a document signed in the browser, then completed', async () => {
      const target = await receiver();
      const { secret } = await register(target.url, { events: ['document.signed', 'document.completed'] });
      const { nda } = await seedSamples(stack, account);
      const created = await createDocument(stack, account, {
        template_id: nda.id,
        name: 'Hooked NDA',
        signers: [
          { name: 'Ann', email: 'ann-hook@example.test' },
          { name: 'Bob', email: 'bob-hook@example.test' },
        ],
        send: true,
      });
      const titleId = nda.widgets.find((w) => w.role === 'Receiving Party' && w.type === 'text')!.id;
      for (const [index, values] of [
        [0, {}],
        [1, { [titleId]: 'CFO' }],
      ] as const) {
        const signer = created.body.signers[index];
        const session = await new SignerSession(stack, signer.sign_url, signer.email).verify();
        assert.equal(
          (
            await session.request('POST', '/sign', {
              consent: true,
              signature: { method: 'drawn', image: dataUrl(signaturePng()) },
              values,
            })
          ).status,
          200,
        );
      }
      const bodies = await waitFor(
        'signed twice and completed',
        () => {
          const mine = target.received
            .map((entry) => ({ entry, body: JSON.parse(entry.body) }))
            .filter(({ body }) => body.data.document_id === created.body.document_id);
          return mine.length === 3 ? mine : undefined;
        },
        30_000,
      );
      assert.deepEqual(bodies.map(({ body }) => body.event).sort(), ['document.completed', 'document.signed', 'document.signed']);
      for (const { entry } of bodies) assert.equal(verify(secret, String(entry.headers['x-webhook-signature']), entry.body), true);
      const completed = bodies.find(({ body }) => body.event === 'document.completed')!.body;
      assert.equal(completed.data.signers.length, 2);
    });

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
