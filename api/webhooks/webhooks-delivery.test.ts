import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { waitFor } from '../../test/cli';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { account, deliveriesOf, emit, receiver, register, stack, useWebhookStack, verify } from '../../test/fixtures/webhooks';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';

describe('webhooks', () => {
  useWebhookStack();

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

    it('carries Standard Webhooks headers that the standardwebhooks library verifies, over the same timestamp', async () => {
      const target = await receiver();
      const { secret } = await register(target.url);
      const eventId = await emit('document.signed', { document_id: 'doc_std', note: 'standard' });
      const [got] = await waitFor('the delivery', () => (target.ofEvent(eventId).length ? target.ofEvent(eventId) : undefined), 15_000);
      const headers = got.headers as Record<string, string>;
      assert.equal(headers['webhook-id'], eventId);
      assert.match(headers['webhook-timestamp'], /^\d+$/);
      assert.equal(headers['webhook-timestamp'], /t=(\d+)/.exec(headers['x-webhook-signature'])![1], 'one timestamp for both schemes');
      assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(new Webhook(secret).verify(got.body, headers), JSON.parse(got.body));
      assert.throws(() => new Webhook(secret).verify(got.body.replace('standard', 'standarD'), headers), WebhookVerificationError);
      const other = new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
      assert.throws(() => other.verify(got.body, headers), WebhookVerificationError, 'another secret fails');
      assert.throws(
        () => new Webhook(secret).verify(got.body, { ...headers, 'webhook-id': 'evt_other' }),
        WebhookVerificationError,
        'the id is signed',
      );
      // The library refuses a timestamp more than five minutes old: the receiver's clock moved on.
      const later = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 301) };
      assert.throws(() => new Webhook(secret).verify(got.body, later), WebhookVerificationError, 'a stale timestamp fails');
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
      const standard = overlapping.headers as Record<string, string>;
      assert.equal(standard['webhook-signature'].split(' ').length, 2, 'one Standard Webhooks signature per secret');
      for (const each of [old, rotated.body.secret]) assert.ok(new Webhook(each).verify(overlapping.body, standard));

      const final = await call(stack.url, 'POST', `/v1/webhooks/${webhook_id}/rotate-secret`, {
        key: account.key,
        body: { overlap_seconds: 0 },
      });
      const later = await emit('document.signed', { rotation: 'done' });
      const [after] = await waitFor('the later delivery', () => (target.ofEvent(later).length ? target.ofEvent(later) : undefined), 15_000);
      const laterHeader = String(after.headers['x-webhook-signature']);
      assert.equal(verify(final.body.secret, laterHeader, after.body), true);
      assert.equal(verify(rotated.body.secret, laterHeader, after.body), false);
      assert.ok(new Webhook(final.body.secret).verify(after.body, after.headers as Record<string, string>));
      assert.throws(
        () => new Webhook(rotated.body.secret).verify(after.body, after.headers as Record<string, string>),
        WebhookVerificationError,
      );
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
      for (const { entry } of bodies) {
        assert.equal(verify(secret, String(entry.headers['x-webhook-signature']), entry.body), true);
        assert.ok(new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>));
      }
      const completed = bodies.find(({ body }) => body.event === 'document.completed')!.body;
      assert.equal(completed.data.signers.length, 2);
    });
  });
});
