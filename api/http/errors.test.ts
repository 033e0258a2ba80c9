import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeKey } from '../../activities/accounts/accounts';
import { type Account, createAccount } from '../../test/factories';
import { call, type Reply } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

/** SPEC's error body, exactly: {error: {code, message, docs_url}} (+ details for invalid_request). */
function assertError(reply: Reply, status: number, code: string, docsBase: string) {
  assert.equal(reply.status, status, `status for ${code}: ${reply.text}`);
  assert.match(reply.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(Object.keys(reply.body), ['error']);
  const keys = Object.keys(reply.body.error).sort();
  assert.deepEqual(
    keys.filter((key) => key !== 'details'),
    ['code', 'docs_url', 'message'],
  );
  assert.equal(reply.body.error.code, code);
  assert.equal(typeof reply.body.error.message, 'string');
  assert.ok(reply.body.error.message.length > 0);
  assert.equal(reply.body.error.docs_url, `${docsBase}#${code}`);
}

describe('error answers', () => {
  let stack: Stack;
  let business: Account;
  let docs: string;

  before(async () => {
    stack = await startStack({ worker: false, env: { SVC_JSON_LIMIT_BYTES: '4096' } });
    business = await createAccount(stack.deps.db);
    docs = stack.config.docsUrl;
  });
  after(() => stack.close());

  describe('401 unauthorized', () => {
    it('answers a missing Authorization header', async () => {
      assertError(await call(stack.url, 'GET', '/v1/me'), 401, 'unauthorized', docs);
    });

    it('answers a header that is not Bearer, a malformed key and an unknown key alike', async () => {
      const unknown = `svc_${'A'.repeat(32)}`;
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer not-a-key', `Bearer ${unknown}`, `Bearer ${business.key}x`]) {
        assertError(await call(stack.url, 'GET', '/v1/me', { headers: { authorization } }), 401, 'unauthorized', docs);
      }
    });

    it('answers a revoked key', async () => {
      const account = await createAccount(stack.deps.db);
      assert.equal((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status, 200);
      await revokeKey(stack.deps.db, account.keyId);
      assertError(await call(stack.url, 'GET', '/v1/me', { key: account.key }), 401, 'unauthorized', docs);
    });

    it('comes before any other check, on every kind of endpoint', async () => {
      assertError(await call(stack.url, 'POST', '/v1/documents', { body: { bad: true } }), 401, 'unauthorized', docs);
      assertError(await call(stack.url, 'GET', '/v1/documents/doc_x'), 401, 'unauthorized', docs);
    });
  });

  describe('403 plan_required', () => {
    it('refuses free and pro plans and admits business and enterprise', async () => {
      for (const plan of ['free', 'pro'] as const) {
        const account = await createAccount(stack.deps.db, { plan });
        const reply = await call(stack.url, 'GET', '/v1/me', { key: account.key });
        assertError(reply, 403, 'plan_required', docs);
        assert.match(reply.body.error.message, new RegExp(plan));
        assertError(await call(stack.url, 'GET', '/v1/flags', { key: account.key }), 403, 'plan_required', docs);
      }
      for (const plan of ['business', 'enterprise'] as const) {
        const account = await createAccount(stack.deps.db, { plan });
        assert.equal((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status, 200, plan);
      }
    });
  });

  describe('400 invalid_request', () => {
    it('answers malformed JSON', async () => {
      const reply = await call(stack.url, 'POST', '/v1/documents', {
        key: business.key,
        raw: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      assertError(reply, 400, 'invalid_request', docs);
      assert.match(reply.body.error.message, /not valid JSON/);
    });

    it('names each field of the wrong type, missing or unknown', async () => {
      const reply = await call(stack.url, 'POST', '/v1/documents', {
        key: business.key,
        body: { template_id: 42, name: 'NDA', signers: [{ name: 'Ann', email: 'not-an-email' }], sendd: true },
      });
      assertError(reply, 400, 'invalid_request', docs);
      const paths = reply.body.error.details.map((detail: { path: string }) => detail.path).sort();
      assert.deepEqual(paths, ['sendd', 'signers.0.email', 'template_id']);
      assert.match(reply.body.error.message, /template_id/);
      assert.match(reply.body.error.message, /signers\.0\.email/);
      assert.match(reply.body.error.message, /sendd: Unknown field/);
    });

    it('says Required for a missing field, and treats an empty body as {}', async () => {
      const reply = await call(stack.url, 'POST', '/v1/documents', { key: business.key });
      assertError(reply, 400, 'invalid_request', docs);
      const detail = (path: string) => reply.body.error.details.find((item: { path: string }) => item.path === path);
      assert.deepEqual(detail('name'), { path: 'name', message: 'Required' });
      assert.deepEqual(detail('template_id'), { path: 'template_id', message: 'give either template_id or drive_file_id' });
    });

    it('refuses a JSON body that is not an object', async () => {
      for (const raw of ['[]', '"text"', '42', 'null']) {
        const reply = await call(stack.url, 'POST', '/v1/documents', {
          key: business.key,
          raw,
          headers: { 'content-type': 'application/json' },
        });
        assertError(reply, 400, 'invalid_request', docs);
      }
    });

    it('names bad and unknown query parameters', async () => {
      const low = await call(stack.url, 'GET', '/v1/documents?limit=0', { key: business.key });
      assertError(low, 400, 'invalid_request', docs);
      assert.equal(low.body.error.details[0].path, 'query.limit');
      const unknown = await call(stack.url, 'GET', '/v1/documents?limt=5', { key: business.key });
      assertError(unknown, 400, 'invalid_request', docs);
      assert.equal(unknown.body.error.details[0].path, 'query.limt');
    });

    it('refuses send without confirm: true', async () => {
      for (const body of [{}, { confirm: false }, { confirm: 'yes' }]) {
        const reply = await call(stack.url, 'POST', '/v1/documents/doc_x/send', { key: business.key, body });
        assertError(reply, 400, 'invalid_request', docs);
        assert.equal(reply.body.error.details[0].path, 'confirm');
      }
    });
  });

  describe('413 payload_too_large and 415 unsupported_media_type', () => {
    it('refuses a body over the limit by its Content-Length', async () => {
      const reply = await call(stack.url, 'POST', '/v1/documents', { key: business.key, body: { name: 'x'.repeat(5000) } });
      assertError(reply, 413, 'payload_too_large', docs);
    });

    it('refuses a streamed body over the limit with no Content-Length', async () => {
      const chunk = new TextEncoder().encode(`{"name": "${'x'.repeat(3000)}`);
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.enqueue(chunk);
          controller.close();
        },
      });
      const response = await fetch(`${stack.url}/v1/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${business.key}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      assert.equal(response.status, 413);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'payload_too_large');
    });

    it('refuses a body that is not JSON', async () => {
      const reply = await call(stack.url, 'POST', '/v1/documents', {
        key: business.key,
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assertError(reply, 415, 'unsupported_media_type', docs);
    });
  });

  describe('routing', () => {
    it('answers 404 not_found for an unknown path under /v1', async () => {
      assertError(await call(stack.url, 'GET', '/v1/nothing-here', { key: business.key }), 404, 'not_found', docs);
    });

    it('answers 405 with Allow for a known path and another method', async () => {
      const reply = await call(stack.url, 'DELETE', '/v1/me', { key: business.key });
      assertError(reply, 405, 'method_not_allowed', docs);
      assert.equal(reply.headers.get('allow'), 'GET');
    });

    it('answers 501 not_implemented for SPEC endpoints whose issue has not landed, after auth and validation', async () => {
      assertError(await call(stack.url, 'POST', '/v1/offers/ofr_x/counter', { key: business.key, body: {} }), 501, 'not_implemented', docs);
      assertError(await call(stack.url, 'POST', '/v1/offers/ofr_x/counter', { body: {} }), 401, 'unauthorized', docs);
    });

    it('serves the page that docs_url points at, with an anchor per code', async () => {
      assert.equal(new URL(docs).pathname, '/docs/errors');
      const page = await fetch(`${stack.url}/docs/errors`);
      const html = await page.text();
      assert.equal(page.status, 200);
      for (const code of ['unauthorized', 'plan_required', 'invalid_request', 'payload_too_large', 'not_implemented']) {
        assert.ok(html.includes(`id="${code}"`), code);
      }
    });
  });

  describe('no input causes a 500', () => {
    it('answers every odd request with a 4xx', async () => {
      const bodies = [
        '',
        '{',
        '}',
        '{"a":1}',
        '[1,2]',
        '\u0000\u0001',
        '{"__proto__": {"x": 1}}',
        '{"name": {"$gt": ""}}',
        'x'.repeat(100),
        '{"signers": "all"}',
        '{"signers": [null]}',
        '{"template_id": null}',
      ];
      const paths = [
        '/v1/documents',
        '/v1/contacts',
        '/v1/webhooks',
        '/v1/transfers',
        '/v1/documents/%00/send',
        '/v1/documents/..%2F..%2Fetc/sign',
        '/v1/offers/%E0%A4%A/accept',
      ];
      for (const path of paths) {
        for (const raw of bodies) {
          for (const contentType of ['application/json', 'text/plain']) {
            const reply = await call(stack.url, 'POST', path, { key: business.key, raw, headers: { 'content-type': contentType } });
            assert.ok(
              (reply.status >= 400 && reply.status < 500) || reply.status === 501,
              `${path} ${contentType} ${JSON.stringify(raw)} → ${reply.status} ${reply.text}`,
            );
            assert.ok(reply.body?.error?.code, `${path} ${JSON.stringify(raw)} → no error code`);
          }
        }
      }
    });
  });
});
