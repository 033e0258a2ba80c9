import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Template } from '../../db/models';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call, type Reply } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

let stack: Stack;
let owner: Account;
let nda: Template;

before(async () => {
  stack = await startStack({ worker: false });
  owner = await createAccount(stack.deps.db);
  ({ nda } = await seedSamples(stack, owner));
});
after(() => stack?.close());

/** 400 invalid_request naming the field, where PostgreSQL would have refused the text with a 500. */
function assertRefused(reply: Reply, path: string): void {
  assert.equal(reply.status, 400, reply.text);
  assert.equal(reply.body?.error?.code, 'invalid_request', reply.text);
  assert.deepEqual(
    reply.body.error.details.map((detail: { path: string }) => detail.path),
    [path],
    reply.text,
  );
}

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('text PostgreSQL refuses (NUL) answers 400 naming the field, never 500', () => {
  const signers = [
    { name: 'Ann', email: 'ann@example.test' },
    { name: 'Bob', email: 'bob@example.test' },
  ];

  it('in a JSON string, nested or not, and in a JSON key', async () => {
    const documents = (body: unknown) => call(stack.url, 'POST', '/v1/documents', { key: owner.key, body });
    assertRefused(await documents({ template_id: nda.id, name: 'a\u0000b', signers }), 'name');
    assertRefused(await documents({ template_id: '\u0000', name: 'x', signers }), 'template_id');
    assertRefused(
      await documents({ template_id: nda.id, name: 'x', signers: [signers[0], { name: 'Bob\u0000', email: 'bob@example.test' }] }),
      'signers.1.name',
    );
    assertRefused(await documents({ template_id: nda.id, name: 'x', signers, 'ke\u0000y': true }), 'ke\\u0000y');
    // An unpaired surrogate is refused by jsonb the same way.
    const raw = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      raw: `{"template_id": "${nda.id}", "name": "\\ud800", "signers": []}`,
      headers: { 'content-type': 'application/json' },
    });
    assertRefused(raw, 'name');
  });

  it('in a path parameter, of the API and of the app', async () => {
    assertRefused(await call(stack.url, 'GET', '/v1/documents/doc_%00x', { key: owner.key }), 'path.id');
    assertRefused(await call(stack.url, 'GET', '/v1/templates/%00', { key: owner.key }), 'path.id');
    assertRefused(await call(stack.url, 'POST', `${new URL(stack.config.appUrl).pathname}/sign/sgn_%00.x/code`), 'path.token');
  });

  it('in a query value or name', async () => {
    assertRefused(await call(stack.url, 'GET', '/v1/documents?limit=%00', { key: owner.key }), 'query.limit');
    assertRefused(await call(stack.url, 'GET', `${new URL(stack.config.appUrl).pathname}/login?next=%2Fapp%00`), 'query.next');
    assertRefused(await call(stack.url, 'GET', '/v1/templates?x%00=1', { key: owner.key }), 'query.x\\u0000');
  });

  it('in what a cursor decodes to: only a cursor this API gave out is taken', async () => {
    const list = (cursor: string) => call(stack.url, 'GET', `/v1/documents?cursor=${cursor}`, { key: owner.key });
    assertRefused(await list(cursorOf({ t: new Date().toISOString(), id: '\u0000' })), 'query.cursor');
    assertRefused(await list(cursorOf({ t: new Date().toISOString(), id: 'doc_\u0000' })), 'query.cursor');
    assertRefused(await list(cursorOf({ t: '-010000-01-01T00:00:00.000Z', id: 'doc_abc' })), 'query.cursor');
    assertRefused(
      await call(stack.url, 'GET', `/v1/templates?cursor=${cursorOf({ t: new Date().toISOString(), id: 'tpl_x\u0000' })}`, {
        key: owner.key,
      }),
      'query.cursor',
    );
    assert.equal((await list(cursorOf({ t: new Date().toISOString(), id: 'doc_abc' }))).status, 200, 'a well-formed cursor still works');
  });

  it('in the sign page’s values', async () => {
    const email = `ann-${Date.now()}@example.test`;
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'NDA',
      send: true,
      signers: [{ name: 'Ann', email }, signers[1]],
    });
    assert.equal(created.status, 201, created.text);
    const signer = await new SignerSession(stack, created.body.signers[0].sign_url, email).verify();
    const signature = { method: 'typed', image: 'data:image/png;base64,AA==' };
    assertRefused(await signer.request('POST', '/sign', { consent: true, signature, values: { title: 'CTO\u0000' } }), 'values.title');
    assertRefused(await signer.request('POST', '/decline', { reason: '\u0000' }), 'reason');
    assertRefused(await signer.request('POST', '/verify', { code: '12\u00003456' }), 'code');
  });
});
