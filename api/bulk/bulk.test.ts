import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Template } from '../../db/models';
import { BulkSend, BulkSendItem, Document } from '../../db/models';
import { seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { freePort } from '../../test/ports';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

// ALSO_ON_PGLITE: a bulk's items are made by activities in transactions of their own, each with its document.

const CONCURRENCY = 3;

const pair = (tag: string, index: number) => [
  { name: `Ann ${tag} ${index}`, email: `ann-${tag}-${index}@example.test` },
  { name: `Bob ${tag} ${index}`, email: `bob-${tag}-${index}@example.test` },
];

/** The most items in the air at once, from when each item's making started and ended. */
function mostAtOnce(items: Array<{ started_at: Date | null; finished_at: Date | null }>): number {
  const edges = items
    .filter((item) => item.started_at && item.finished_at)
    .flatMap((item) => [
      { at: item.started_at!.getTime(), delta: 1 },
      { at: item.finished_at!.getTime(), delta: -1 },
    ])
    // An end and a start at the same millisecond: the end first.
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.delta;
    most = Math.max(most, now);
  }
  return most;
}

describe('bulk send API', () => {
  let stack: Stack;
  let owner: Account;
  let stranger: Account;
  let templates: { nda: Template; services: Template };

  before(async () => {
    stack = await startStack({ env: { SVC_BULK_CONCURRENCY: String(CONCURRENCY) } });
    owner = await createAccount(stack.deps.db, { name: 'Bea Bulk' });
    stranger = await createAccount(stack.deps.db, { name: 'Sam Stranger' });
    templates = await seedSamples(stack, owner);
  });
  after(() => stack.close());

  const post = (body: unknown, key = owner.key, headers: Record<string, string> = {}) =>
    call(stack.url, 'POST', '/v1/documents/bulk', { key, body, headers });
  const completed = (bulkId: string, key = owner.key): Promise<Reply> =>
    waitFor(
      `bulk ${bulkId} completed`,
      async () => {
        const reply = await call(stack.url, 'GET', `/v1/bulk/${bulkId}`, { key });
        assert.equal(reply.status, 200, reply.text);
        return reply.body.status === 'completed' ? reply : undefined;
      },
      120_000,
      300,
    );

  it('makes and sends 20 documents, a few at once: 18 sent and mailed, the 2 that do not fit the template refused per item', async () => {
    const items: unknown[] = Array.from({ length: 20 }, (_, index) => ({ signers: pair('run', index) }));
    // Three signers for a two-role template (invalid_request), and one signer short of sending (invalid_state).
    items[4] = { signers: [...pair('run', 4), { name: 'Cy Extra', email: 'cy-extra@example.test' }] };
    items[11] = { signers: pair('run', 11).slice(0, 1), name: 'One short' };
    items[7] = { signers: pair('run', 7), name: 'NDA for item 7', strict_order: true };
    const started = await post({ template_id: templates.nda.id, name: 'Quarterly NDA', send: true, items });
    assert.equal(started.status, 202, started.text);
    assert.match(started.body.bulk_id, /^blk_/);
    assert.deepEqual(started.body, { bulk_id: started.body.bulk_id, status: 'running', total: 20, created: 0, failed: 0, pending: 20 });
    assert.equal(started.headers.get('location'), `/v1/bulk/${started.body.bulk_id}`);

    const done = (await completed(started.body.bulk_id)).body;
    assert.equal(done.total, 20);
    assert.equal(done.created, 18);
    assert.equal(done.failed, 2);
    assert.equal(done.pending, 0);
    assert.ok(done.completed_at);
    assert.equal(done.items.length, 20);
    assert.equal(done.next_cursor, null);
    assert.deepEqual(
      done.items.map((item: { index: number }) => item.index),
      Array.from({ length: 20 }, (_, index) => index),
    );
    assert.equal(done.items[4].status, 'failed');
    assert.equal(done.items[4].document_id, null);
    assert.equal(done.items[4].error.code, 'invalid_request');
    assert.match(done.items[4].error.message, /2 signer role/);
    assert.equal(done.items[11].status, 'failed');
    assert.equal(done.items[11].error.code, 'invalid_state');
    assert.match(done.items[11].error.message, /Every role needs a signer/);

    const made = done.items.filter((item: { status: string }) => item.status === 'created');
    assert.equal(made.length, 18);
    for (const item of made) {
      assert.equal(item.error, null);
      const document = await call(stack.url, 'GET', `/v1/documents/${item.document_id}`, { key: owner.key });
      assert.equal(document.status, 200, document.text);
      assert.equal(document.body.status, 'sent');
      assert.equal(document.body.template_id, templates.nda.id);
      assert.deepEqual(
        document.body.signers.map((signer: { email: string }) => signer.email),
        pair('run', item.index).map((signer) => signer.email),
      );
      assert.equal(document.body.name, item.index === 7 ? 'NDA for item 7' : 'Quarterly NDA');
      assert.equal(document.body.strict_order, item.index === 7);
    }
    // The failed items left no document behind: the tenant has exactly the 18.
    const documents = await Document.query(stack.deps.db).where({ tenant_id: owner.tenantId });
    assert.equal(documents.length, 18);
    // Every signer of a sent document gets the invitation with their sign link, as for POST /documents
    // (under strict order, item 7's first signer only: the second is invited at their turn).
    const invited = (index: number) => (index === 7 ? pair('run', index).slice(0, 1) : pair('run', index));
    await waitFor(
      'the invitations of the 18 documents',
      () => made.every((item: { index: number }) => invited(item.index).every((signer) => stack.smtp!.latest(signer.email, 'sign-invite'))),
      60_000,
    );
    assert.equal(stack.smtp!.latest(pair('run', 7)[1].email, 'sign-invite'), undefined);
    assert.equal(stack.smtp!.latest('cy-extra@example.test', 'sign-invite'), undefined);
    assert.equal(stack.smtp!.latest(pair('run', 11)[0].email, 'sign-invite'), undefined);

    // The bound held: never more than SVC_BULK_CONCURRENCY items in the making at once.
    const rows = await BulkSendItem.query(stack.deps.db).where({ bulk_id: started.body.bulk_id });
    const most = mostAtOnce(rows);
    assert.ok(most <= CONCURRENCY, `${most} items were made at once; the bound is ${CONCURRENCY}`);
    assert.ok(most >= 1);
  });

  it('makes drafts without `send`, pages its items, and shows them to its own tenant only', async () => {
    const items = Array.from({ length: 5 }, (_, index) => ({ signers: pair('draft', index) }));
    const started = await post({ template_id: templates.nda.id, name: 'Draft NDA', items });
    assert.equal(started.status, 202, started.text);
    const id = started.body.bulk_id;
    const done = (await completed(id)).body;
    assert.equal(done.created, 5);
    assert.equal(done.send, false);
    for (const item of done.items) {
      const document = await call(stack.url, 'GET', `/v1/documents/${item.document_id}`, { key: owner.key });
      assert.equal(document.body.status, 'draft');
    }
    assert.equal(stack.smtp!.latest(pair('draft', 0)[0].email, 'sign-invite'), undefined);

    const first = await call(stack.url, 'GET', `/v1/bulk/${id}?limit=2`, { key: owner.key });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.items.map((item: { index: number }) => item.index),
      [0, 1],
    );
    assert.equal(first.body.created, 5, 'the counts cover every item, not the page');
    const second = await call(stack.url, 'GET', `/v1/bulk/${id}?limit=2&cursor=${first.body.next_cursor}`, { key: owner.key });
    assert.deepEqual(
      second.body.items.map((item: { index: number }) => item.index),
      [2, 3],
    );
    const last = await call(stack.url, 'GET', `/v1/bulk/${id}?limit=2&cursor=${second.body.next_cursor}`, { key: owner.key });
    assert.deepEqual(
      last.body.items.map((item: { index: number }) => item.index),
      [4],
    );
    assert.equal(last.body.next_cursor, null);
    const bad = await call(stack.url, 'GET', `/v1/bulk/${id}?cursor=garbage`, { key: owner.key });
    assertErrorCode(bad, 400, 'invalid_request');
    assert.equal(bad.body.error.details[0].path, 'query.cursor');

    // Another tenant's bulk, and one that does not exist, answer alike.
    assertErrorCode(await call(stack.url, 'GET', `/v1/bulk/${id}`, { key: stranger.key }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'GET', '/v1/bulk/blk_ZZZZZZZZZZZZZZZZZZZZ', { key: owner.key }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'GET', `/v1/bulk/${id}`), 401, 'unauthorized');
  });

  it('answers a retry with the same Idempotency-Key with the same bulk, made once; another body with that key is 409', async () => {
    const body = {
      template_id: templates.nda.id,
      name: 'Retried NDA',
      send: true,
      items: [{ signers: pair('retry', 0) }, { signers: pair('retry', 1) }],
    };
    const headers = { 'idempotency-key': 'bulk-retry-1' };
    const first = await post(body, owner.key, headers);
    assert.equal(first.status, 202, first.text);
    const again = await post(body, owner.key, headers);
    assert.equal(again.status, 202, again.text);
    assert.equal(again.body.bulk_id, first.body.bulk_id);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('location'), `/v1/bulk/${first.body.bulk_id}`);
    await completed(first.body.bulk_id);
    const afterDone = await post(body, owner.key, headers);
    assert.equal(afterDone.status, 202);
    assert.deepEqual(afterDone.body, { bulk_id: first.body.bulk_id, status: 'completed', total: 2, created: 2, failed: 0, pending: 0 });
    const bulks = await BulkSend.query(stack.deps.db).where({ tenant_id: owner.tenantId, name: 'Retried NDA' });
    assert.equal(bulks.length, 1);
    const documents = await Document.query(stack.deps.db).where({ tenant_id: owner.tenantId, name: 'Retried NDA' });
    assert.equal(documents.length, 2);
    assertErrorCode(await post({ ...body, name: 'Another' }, owner.key, headers), 409, 'idempotency_mismatch');
  });

  it('refuses a malformed body as a whole: 501 items, a bad item, no template; 404 for another tenant’s template; 401 with no key; without Temporal it is recorded and started later', async () => {
    const many = await post({
      template_id: templates.nda.id,
      name: 'Too many',
      items: Array.from({ length: 501 }, (_, index) => ({ signers: [{ name: 'A', email: `a${index}@example.test` }] })),
    });
    assertErrorCode(many, 400, 'invalid_request');
    assert.equal(many.body.error.details[0].path, 'items');
    const badItem = await post({
      template_id: templates.nda.id,
      name: 'Bad item',
      items: [{ signers: pair('bad', 0) }, { signers: [{ name: 'No mail' }] }],
    });
    assertErrorCode(badItem, 400, 'invalid_request');
    assert.equal(badItem.body.error.details[0].path, 'items.1.signers.0.email');
    const unknownField = await post({ template_id: templates.nda.id, name: 'x', items: [{ signers: pair('bad', 1), colour: 'red' }] });
    assertErrorCode(unknownField, 400, 'invalid_request');
    assertErrorCode(await post({ template_id: templates.nda.id, name: 'Empty', items: [] }), 400, 'invalid_request');
    const noTemplate = await post({ name: 'No template', items: [{ signers: pair('bad', 2) }] });
    assertErrorCode(noTemplate, 400, 'invalid_request');
    assert.equal(noTemplate.body.error.details[0].path, 'template_id');
    assertErrorCode(
      await post({ template_id: templates.nda.id, name: 'x', items: [{ signers: pair('bad', 3) }] }, stranger.key),
      404,
      'not_found',
    );
    assertErrorCode(await call(stack.url, 'POST', '/v1/documents/bulk', { body: { template_id: templates.nda.id } }), 401, 'unauthorized');
    // Nothing of these was recorded.
    assert.equal((await BulkSend.query(stack.deps.db).where({ tenant_id: stranger.tenantId })).length, 0);
    assert.equal((await BulkSend.query(stack.deps.db).whereIn('name', ['Too many', 'Bad item', 'Empty', 'No template'])).length, 0);
    // Temporal unreachable: the bulk is recorded with the start of its workflow, which the sweep makes later.
    const down = await stack.withEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, SVC_TEMPORAL_CALL_TIMEOUT_MS: '2000' });
    try {
      const accepted = await call(down.url, 'POST', '/v1/documents/bulk', {
        key: owner.key,
        body: { template_id: templates.nda.id, name: 'Temporal away', send: true, items: [{ signers: pair('down', 0) }] },
      });
      assert.equal(accepted.status, 202, accepted.text);
      await waitFor(
        'the bulk started without Temporal to complete',
        async () => (await BulkSend.query(stack.deps.db).findById(accepted.body.bulk_id))?.status === 'completed',
        60_000,
      );
    } finally {
      await down.close();
    }
  });
});
