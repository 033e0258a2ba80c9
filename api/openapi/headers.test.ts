import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Account, createAccount } from '../../test/factories';
import { call, type Reply } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

const LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'];

/**
 * The headers the OpenAPI document declares for an answer are the ones the service sends: the
 * counters on every answer of a counted route (success and error alike), Retry-After where a wait is
 * asked for, and none of them on health but its own 429's Retry-After.
 */
describe('the OpenAPI document declares the headers each answer carries', () => {
  let stack: Stack;
  let account: Account;
  let document: any;

  before(async () => {
    stack = await startStack({
      worker: false,
      env: { SVC_RATE_LIMIT_PER_KEY: '1000', SVC_RATE_LIMIT_PER_IP: '1000', SVC_HEALTH_LIMIT_PER_IP: '2', SVC_TRUST_PROXY: 'true' },
    });
    account = await createAccount(stack.deps.db);
    document = (await call(stack.url, 'GET', '/v1/openapi.json')).body;
  });
  after(() => stack.close());

  /** Compares one answer with what the document says for its operation and status. */
  function matches(method: string, template: string, reply: Reply): void {
    const what = `${method.toUpperCase()} ${template} → ${reply.status}`;
    const response = document.paths[template]?.[method]?.responses?.[String(reply.status)];
    assert.ok(response, `${what} is not in the document`);
    const declared = Object.keys(response.headers ?? {});
    const sent = LIMIT_HEADERS.filter((name) => reply.headers.has(name));
    for (const name of sent) assert.ok(declared.includes(name), `${what} sends ${name}, which the document does not declare (${declared})`);
    for (const name of declared.filter((header) => header.startsWith('X-RateLimit-')))
      assert.ok(sent.includes(name), `${what} declares ${name} but does not send it`);
  }

  let address = 0;
  /** A fresh client address for each request, so no counter runs out but the ones a test means to. */
  const from = () => {
    address += 1;
    return { 'x-forwarded-for': `198.51.100.${address % 250}` };
  };

  it('on every GET without path parameters, with the key where one is needed', async () => {
    let checked = 0;
    for (const [template, operations] of Object.entries<any>(document.paths)) {
      if (!operations.get || template.includes('{')) continue;
      const keyed = operations.get.security.length > 0;
      const reply = await call(stack.url, 'GET', template, { key: keyed ? account.key : undefined, headers: from() });
      matches('get', template, reply);
      checked += 1;
    }
    assert.ok(checked >= 10, `checked ${checked} operations`);
  });

  it('on refusals: 400, 401, 404 and 429', async () => {
    matches(
      'post',
      '/v1/documents',
      await call(stack.url, 'POST', '/v1/documents', { key: account.key, body: { name: 1 }, headers: from() }),
    );
    matches('get', '/v1/me', await call(stack.url, 'GET', '/v1/me', { headers: from() }));
    matches('get', '/v1/documents/{id}', await call(stack.url, 'GET', '/v1/documents/doc_unknown', { key: account.key, headers: from() }));
    const tight = await stack.withEnv({ SVC_RATE_LIMIT_PER_IP: '1', SVC_TRUST_PROXY: 'true' });
    try {
      const headers = { 'x-forwarded-for': '203.0.113.44' };
      matches('get', '/v1/flags', await call(tight.url, 'GET', '/v1/flags', { headers }));
      const refused = await call(tight.url, 'GET', '/v1/flags', { headers });
      assert.equal(refused.status, 429);
      matches('get', '/v1/flags', refused);
    } finally {
      await tight.close();
    }
  });

  it('on health: no counters, and its own limit’s 429 with Retry-After', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.77' };
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await call(stack.url, 'GET', '/v1/health', { headers }));
    assert.deepEqual(
      answers.map((reply) => reply.status),
      [200, 200, 429],
    );
    assert.ok(Number(answers[2].headers.get('retry-after')) >= 1);
    assert.equal(answers[2].body.error.details[0].path, 'health_per_address');
    for (const reply of answers) matches('get', '/v1/health', reply);
  });
});
