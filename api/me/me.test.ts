import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPlan } from '../../activities/accounts/accounts';
import { ApiKey } from '../../db/models';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

describe('GET /v1/me and GET /v1/flags', () => {
  let stack: Stack;
  let ann: Account;

  before(async () => {
    stack = await startStack({ worker: false });
    ann = await createAccount(stack.deps.db, { name: 'Ann', label: 'ops agent' });
  });
  after(() => stack.close());

  it('describes the calling key, never its secret', async () => {
    const reply = await call(stack.url, 'GET', '/v1/me', { key: ann.key });
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body).sort(), [
      'allowed_confirmation_levels',
      'flags',
      'key',
      'plan',
      'principal',
      'scopes',
      'tenant_id',
    ]);
    assert.equal(reply.body.key.id, ann.keyId);
    assert.equal(reply.body.key.label, 'ops agent');
    assert.equal(reply.body.key.prefix, ann.key.slice(0, 8));
    assert.ok(!reply.text.includes(ann.key), 'the raw key appears in the response');
    assert.ok(!reply.text.includes(ann.key.slice(8)), 'the secret part of the key appears in the response');
    assert.deepEqual(reply.body.principal, { id: ann.principalId, email: ann.email, name: 'Ann' });
    assert.equal(reply.body.tenant_id, ann.tenantId);
    assert.equal(reply.body.plan, 'business');
    assert.ok(reply.body.scopes.includes('documents:read'));
    assert.ok(!reply.body.scopes.includes('documents:sign'), 'documents:sign is only attached by a mandate');
    assert.equal(reply.body.signing_mandate, undefined);
    assert.deepEqual(reply.body.allowed_confirmation_levels, []);
    assert.deepEqual(reply.body.flags, {
      l1_signing: true,
      l2_signing: true,
      agent_contacts: true,
      agent_offers: true,
      agent_editor: true,
    });
  });

  it('records when the key was last used (written in a batch after the request, not during it)', async () => {
    const fresh = await createAccount(stack.deps.db);
    assert.equal((await ApiKey.query(stack.deps.db).findById(fresh.keyId))!.last_used_at, null);
    await call(stack.url, 'GET', '/v1/me', { key: fresh.key });
    await stack.deps.keyUsage.flush();
    assert.ok((await ApiKey.query(stack.deps.db).findById(fresh.keyId))!.last_used_at instanceof Date);
  });

  it('answers the flag snapshot at /flags, the same as /me shows', async () => {
    const flags = await call(stack.url, 'GET', '/v1/flags', { key: ann.key });
    const me = await call(stack.url, 'GET', '/v1/me', { key: ann.key });
    assert.equal(flags.status, 200);
    assert.deepEqual(flags.body, me.body.flags);
  });

  it('shows each flag source in the order SPEC gives, through /flags and /me', async () => {
    const cases: Array<{ env: Record<string, string>; expect: Record<string, boolean> }> = [
      // 4. registry default: l2_signing off in production
      { env: { SVC_ENV: 'production' }, expect: { l2_signing: false, l1_signing: true } },
      // 3. the JSON blob over the default
      {
        env: { SVC_ENV: 'production', SVC_FF: '{"l2_signing": true, "agent_editor": false}' },
        expect: { l2_signing: true, agent_editor: false },
      },
      // 2. the legacy alias over the blob
      { env: { SVC_ENV: 'production', SVC_FF: '{"l2_signing": false}', SVC_ALLOW_L2: 'true' }, expect: { l2_signing: true } },
      // 1. SVC_FF_<NAME> over the legacy alias
      { env: { SVC_ALLOW_L2: 'true', SVC_FF_L2_SIGNING: 'false' }, expect: { l2_signing: false } },
      // agent_offers needs agent_contacts
      { env: { SVC_FF_AGENT_CONTACTS: 'false', SVC_FF_AGENT_OFFERS: 'true' }, expect: { agent_contacts: false, agent_offers: false } },
    ];
    for (const { env, expect } of cases) {
      const api = await stack.withEnv({
        SVC_SECRET_KEY: 'a-production-secret-of-at-least-32-characters',
        SVC_TSA_URL: 'https://tsa.example/tsr',
        ...env,
      });
      try {
        const flags = await call(api.url, 'GET', '/v1/flags', { key: ann.key });
        const me = await call(api.url, 'GET', '/v1/me', { key: ann.key });
        for (const [name, value] of Object.entries(expect)) {
          assert.equal(flags.body[name], value, `${name} with ${JSON.stringify(env)}`);
          assert.equal(me.body.flags[name], value, `/me ${name} with ${JSON.stringify(env)}`);
        }
      } finally {
        await api.close();
      }
    }
  });

  it('answers 403 feature_disabled for the operations of a flag that is off', async () => {
    const api = await stack.withEnv({ SVC_FF_AGENT_CONTACTS: 'off' });
    try {
      for (const path of ['/v1/contacts', '/v1/offers']) {
        const reply = await call(api.url, 'GET', path, { key: ann.key });
        assert.equal(reply.status, 403, path);
        assert.equal(reply.body.error.code, 'feature_disabled', path);
      }
    } finally {
      await api.close();
    }
  });

  it('shows another tenant’s key only its own tenant, principal, key and plan', async () => {
    const bob = await createAccount(stack.deps.db, { name: 'Bob', label: 'bob agent' });
    await setPlan(stack.deps.db, { tenantId: ann.tenantId, plan: 'enterprise' });
    const annMe = await call(stack.url, 'GET', '/v1/me', { key: ann.key });
    const bobMe = await call(stack.url, 'GET', '/v1/me', { key: bob.key });
    assert.equal(annMe.body.plan, 'enterprise');
    assert.equal(bobMe.body.plan, 'business');
    assert.equal(bobMe.body.tenant_id, bob.tenantId);
    assert.equal(bobMe.body.key.id, bob.keyId);
    assert.deepEqual(bobMe.body.principal, { id: bob.principalId, email: bob.email, name: 'Bob' });
    for (const secretOrId of [ann.tenantId, ann.principalId, ann.keyId, ann.email]) {
      assert.ok(!bobMe.text.includes(secretOrId), `Bob sees ${secretOrId}`);
    }
  });
});
