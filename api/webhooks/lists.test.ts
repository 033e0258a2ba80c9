import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeEvent } from '../../activities/events/outbox';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { assertPaging, walkPages } from '../../test/paging';
import { Receiver, selfSignedCertificate } from '../../test/receiver';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

describe('webhook lists: webhooks and a webhook’s deliveries, paged', () => {
  let stack: Stack;
  let owner: Account;
  let target: Receiver;

  before(async () => {
    const tls = selfSignedCertificate();
    stack = await startStack({
      env: { SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', SVC_WEBHOOK_CA_FILE: tls.caFile, SVC_OUTBOX_POLL_MS: '100' },
    });
    owner = await createAccount(stack.deps.db);
    target = await new Receiver(tls).start();
  });
  after(async () => {
    await target.stop();
    await stack.close();
  });

  async function register(url: string): Promise<string> {
    const reply = await call(stack.url, 'POST', '/v1/webhooks', { key: owner.key, body: { url } });
    assert.equal(reply.status, 201, reply.text);
    return reply.body.webhook_id;
  }

  it('GET /webhooks pages with limit and cursor, deleted ones left out; a bad cursor or limit is 400; no key is 401', async () => {
    const account = await createAccount(stack.deps.db);
    for (let n = 0; n < 4; n += 1) {
      const reply = await call(stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: `https://127.0.0.1:9/hooks/${n}` } });
      assert.equal(reply.status, 201, reply.text);
    }
    const gone = await call(stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: 'https://127.0.0.1:9/gone' } });
    assert.equal((await call(stack.url, 'DELETE', `/v1/webhooks/${gone.body.webhook_id}`, { key: account.key })).status, 200);
    await assertPaging(stack.url, '/v1/webhooks', account.key, 'webhook_id', 4);
    assert.equal((await call(stack.url, 'GET', '/v1/webhooks')).status, 401);
  });

  it('GET /webhooks/:id/deliveries pages with limit and cursor; a bad cursor or limit is 400; no key 401, another tenant’s 404', async () => {
    const webhookId = await register(target.url);
    const events: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      events.push(await stack.deps.db.transaction(async (trx) => (await writeEvent(trx, owner.tenantId, 'document.signed', { n })).id));
    }
    await waitFor('three deliveries', () => events.every((id) => target.ofEvent(id).length > 0), 15_000);
    const path = `/v1/webhooks/${webhookId}/deliveries`;
    await waitFor('their log', async () => (await walkPages(stack.url, path, owner.key, 20)).length === 3, 5000);
    await assertPaging(stack.url, path, owner.key, 'delivery_id', 3);
    const delivered = await walkPages(stack.url, path, owner.key, 1);
    assert.deepEqual(delivered.map((delivery) => delivery.event_id).sort(), [...events].sort());
    assert.equal((await call(stack.url, 'GET', path)).status, 401);
    assertErrorCode(await call(stack.url, 'GET', path, { key: (await createAccount(stack.deps.db)).key }), 404, 'not_found');
  });
});
