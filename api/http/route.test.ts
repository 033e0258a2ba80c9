import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import type { Services } from '../../activities/services';
import { createLogger } from '../../lib/log';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { type RoutesServer, serveRoutes } from '../../test/routes';
import { type Stack, startStack } from '../../test/stack';
import type { Routes } from './route';

const Thing = z.object({
  id: z.string(),
  size: z.number().int(),
  tags: z.array(z.object({ name: z.string() })),
  note: z.string().nullable(),
});

/** The same handlers on a registry of their own: a correct one and each way a presenter can drift. */
function register(routes: Routes) {
  const base = { method: 'get', tag: 'Test', summary: 'A test route', auth: 'none', response: Thing } as const;
  routes.add({ ...base, path: '/things/right', operationId: 'right' }, async () => ({
    id: 't1',
    size: 1,
    tags: [{ name: 'a' }],
    note: null,
  }));
  routes.add({ ...base, path: '/things/accepted', operationId: 'accepted', status: 201 }, async (ctx) => {
    ctx.status = 202;
    return { id: 't1', size: 1, tags: [], note: 'still working' };
  });
  // The drifted ones are cast past tsc (which refuses them, see below) to show the run-time check too.
  routes.add({ ...base, path: '/things/missing', operationId: 'missing' }, async () => ({ id: 't1', tags: [], note: null }) as never);
  routes.add(
    { ...base, path: '/things/wrong', operationId: 'wrong' },
    async () => ({ id: 't1', size: '1', tags: [], note: null }) as never,
  );
  routes.add(
    { ...base, path: '/things/extra', operationId: 'extra' },
    async () => ({ id: 't1', size: 1, tags: [{ name: 'a', secret: 'x' }], note: null, internal: true }) as never,
  );
  routes.add(
    {
      method: 'get',
      path: '/things/guarded',
      operationId: 'guarded',
      tag: 'Test',
      summary: 'Needs a scope and a flag',
      needs: { scope: 'documents:sign', flag: 'agent_editor' },
    },
    async () => ({ ok: true }),
  );
}

// Never run: tsc checks these, and each @ts-expect-error fails the build if its line stops being an error.
export function typeChecks(routes: Routes): void {
  const base = { method: 'get', path: '/t', operationId: 't', tag: 'Test', summary: 't', response: Thing } as const;
  // @ts-expect-error a field the schema lacks
  routes.add(base, async () => ({ id: 't1', size: 1, tags: [], note: null, extra: 1 }));
  // @ts-expect-error a field the schema lacks, nested in an array
  routes.add(base, async () => ({ id: 't1', size: 1, tags: [{ name: 'a', extra: 1 }], note: null }));
  // @ts-expect-error a field missing
  routes.add(base, async () => ({ id: 't1', tags: [], note: null }));
  // @ts-expect-error a field of the wrong type
  routes.add(base, async () => ({ id: 't1', size: '1', tags: [], note: null }));
  const present = (id: string) => ({ id, size: 1, tags: [], note: null, leaked: 'x' });
  // @ts-expect-error a presenter's extra field, not only a literal's
  routes.add(base, async () => present('t1'));
  routes.add(base, async () => ({ id: 't1', size: 1, tags: [], note: 'fine' }));
}

describe('the route registry', () => {
  let stack: Stack;
  let account: Account;
  const lines: string[] = [];
  const servers: RoutesServer[] = [];

  const serve = async (deps: Services, what: (routes: Routes) => void = register) => {
    const server = await serveRoutes(
      deps,
      what,
      createLogger('error', {}, (line) => lines.push(line) > 0),
    );
    servers.push(server);
    return server;
  };

  before(async () => {
    stack = await startStack({ worker: false });
    account = await createAccount(stack.deps.db);
  });
  after(async () => {
    for (const server of servers) await server.close();
    await stack.close();
  });

  it('answers what the handler returns, with the route’s status or the one the handler sets', async () => {
    const { url } = await serve(stack.deps);
    const right = await call(url, 'GET', '/v1/things/right');
    assert.equal(right.status, 200);
    assert.deepEqual(right.body, { id: 't1', size: 1, tags: [{ name: 'a' }], note: null });
    const accepted = await call(url, 'GET', '/v1/things/accepted');
    assert.equal(accepted.status, 202);
    assert.equal(accepted.body.note, 'still working');
  });

  it('checks every response against its schema under SVC_ENV=test: a drifted one is a 500 with a log that names the field', async () => {
    assert.equal(stack.config.env, 'test');
    const { url } = await serve(stack.deps);
    const expected: Record<string, RegExp> = {
      missing: /response\.size: Required/,
      wrong: /response\.size: .*expected number/i,
      extra: /fields not in the schema: tags\[0\]\.secret, internal/,
    };
    for (const [name, logged] of Object.entries(expected)) {
      lines.length = 0;
      const reply = await call(url, 'GET', `/v1/things/${name}`);
      assertErrorCode(reply, 500, 'internal_error');
      assert.ok(!reply.text.includes('schema'), 'no internals in the answer');
      const line = lines.find((entry) => entry.includes('unhandled error'));
      assert.ok(line, `${name}: nothing logged`);
      assert.match(line, new RegExp(`The response of ${name} does not match its schema`));
      assert.match(line, logged, line);
    }
  });

  it('sends responses as they are outside tests (the types hold them to the schema there), refusals in their shape', async () => {
    const { url } = await serve({ ...stack.deps, config: { ...stack.deps.config, env: 'development' } });
    const extra = await call(url, 'GET', '/v1/things/extra');
    assert.equal(extra.status, 200);
    assert.equal(extra.body.internal, true);
    // Outside tests the route's run is the router's handler itself (no wrapper checking error codes): same answers.
    assertErrorCode(await call(url, 'GET', '/v1/things/guarded'), 401, 'unauthorized');
    assert.equal((await call(url, 'GET', '/v1/things/right')).status, 200);
  });

  it('authorizes through the gate with the spec’s needs: no key 401, plan, scope, then flag', async () => {
    const flags = stack.deps.config.flags;
    const { url } = await serve(stack.deps);
    const off = await serve({
      ...stack.deps,
      config: { ...stack.deps.config, flags: { ...flags, values: { ...flags.values, agent_editor: false } } },
    });
    assertErrorCode(await call(url, 'GET', '/v1/things/guarded'), 401, 'unauthorized');
    assertErrorCode(await call(url, 'GET', '/v1/things/guarded', { key: account.key }), 403, 'insufficient_scope');
    await stack.deps
      .db('api_keys')
      .where({ id: account.keyId })
      .update({ scopes: JSON.stringify(['documents:sign']) });
    assert.equal((await call(url, 'GET', '/v1/things/guarded', { key: account.key })).status, 200);
    const disabled = await call(off.url, 'GET', '/v1/things/guarded', { key: account.key });
    assertErrorCode(disabled, 403, 'feature_disabled');
    assert.equal(disabled.body.error.message, 'The feature agent_editor is disabled for this deployment.');
    await stack.deps.db('tenants').where({ id: account.tenantId }).update({ plan: 'pro' });
    const pro = await call(url, 'GET', '/v1/things/guarded', { key: account.key });
    assertErrorCode(pro, 403, 'plan_required');
    assert.equal(pro.body.error.message, 'API access needs the Business plan or higher; this account is on pro.');
  });
});
