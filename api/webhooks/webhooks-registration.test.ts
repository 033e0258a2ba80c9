import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../lib/log';
import { createAccount } from '../../test/factories';
import { account, register, stack, useWebhookStack } from '../../test/fixtures/webhooks';
import { call } from '../../test/http';

describe('webhooks', () => {
  useWebhookStack();

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
});
