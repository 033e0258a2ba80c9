import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256Hex } from '../../activities/ids';
import { ApiKey, Principal, Tenant } from '../../db/models';
import { runAdmin } from '../../test/cli';
import { call } from '../../test/http';
import { startStack, type Stack } from '../../test/stack';

describe('npm run admin', () => {
  let stack: Stack;
  let env: Record<string, string>;

  before(async () => {
    stack = await startStack({ worker: false });
    env = { DATABASE_URL: stack.database.url, LOG_LEVEL: 'error' };
  });
  after(() => stack.close());

  describe('create-principal', () => {
    it('creates a principal in a new tenant on the business plan by default', async () => {
      const result = await runAdmin(['create-principal', '--email', 'Ann@X.test', '--name', 'Ann'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(Object.keys(result.json).sort(), ['email', 'plan', 'principal_id', 'tenant_id']);
      assert.match(result.json.tenant_id, /^ten_[0-9A-Za-z]{20}$/);
      assert.match(result.json.principal_id, /^prn_[0-9A-Za-z]{20}$/);
      assert.equal(result.json.email, 'ann@x.test');
      assert.equal(result.json.plan, 'business');
      const principal = await Principal.query(stack.deps.db).findById(result.json.principal_id);
      assert.equal(principal?.tenant_id, result.json.tenant_id);
      assert.equal(principal?.name, 'Ann');
    });

    it('takes --plan for the new tenant', async () => {
      const result = await runAdmin(['create-principal', '--email', 'pro@x.test', '--name', 'Pro', '--plan', 'pro'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.json.plan, 'pro');
      assert.equal((await Tenant.query(stack.deps.db).findById(result.json.tenant_id))?.plan, 'pro');
    });

    it('adds a principal to an existing tenant with --tenant', async () => {
      const first = await runAdmin(['create-principal', '--email', 'owner@x.test', '--name', 'Owner', '--plan', 'enterprise'], env);
      const second = await runAdmin(['create-principal', '--email', 'colleague@x.test', '--name', 'Colleague', '--tenant', first.json.tenant_id], env);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.json.tenant_id, first.json.tenant_id);
      assert.equal(second.json.plan, 'enterprise');
    });

    it('fails with a JSON error for an unknown tenant and for an e-mail already taken', async () => {
      const unknown = await runAdmin(['create-principal', '--email', 'lost@x.test', '--name', 'Lost', '--tenant', 'ten_nope'], env);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.json.error.code, 'not_found');
      const taken = await runAdmin(['create-principal', '--email', 'ANN@x.test', '--name', 'Ann again'], env);
      assert.equal(taken.code, 1);
      assert.equal(taken.json.error.code, 'conflict');
      assert.equal(await Principal.query(stack.deps.db).where({ name: 'Ann again' }).resultSize(), 0);
    });

    it('refuses a bad command line with exit code 2, naming the option', async () => {
      const noEmail = await runAdmin(['create-principal', '--name', 'Nobody'], env);
      assert.equal(noEmail.code, 2);
      assert.equal(noEmail.json.error.code, 'usage');
      assert.match(noEmail.json.error.message, /--email/);
      assert.match(noEmail.stderr, /Usage: npm run admin/);
      const badPlan = await runAdmin(['create-principal', '--email', 'x@x.test', '--name', 'X', '--plan', 'gold'], env);
      assert.equal(badPlan.code, 2);
      assert.match(badPlan.json.error.message, /--plan/);
      const unknownOption = await runAdmin(['create-principal', '--email', 'x@x.test', '--name', 'X', '--colour', 'red'], env);
      assert.equal(unknownOption.code, 2);
      const unknownCommand = await runAdmin(['make-coffee'], env);
      assert.equal(unknownCommand.code, 2);
    });
  });

  describe('create-key', () => {
    it('prints the raw key once and stores only its hash; the key works', async () => {
      await runAdmin(['create-principal', '--email', 'keys@x.test', '--name', 'Keys'], env);
      const result = await runAdmin(['create-key', '--email', 'keys@x.test', '--label', 'ops agent'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(Object.keys(result.json).sort(), ['id', 'key', 'label']);
      assert.match(result.json.key, /^svc_[0-9A-Za-z]{32}$/);
      assert.equal(result.json.label, 'ops agent');

      const row = await ApiKey.query(stack.deps.db).findById(result.json.id);
      assert.equal(row?.key_hash, sha256Hex(result.json.key));
      assert.equal(row?.prefix, result.json.key.slice(0, 8));
      const everyColumn = JSON.stringify(await stack.deps.db('api_keys').where({ id: result.json.id }).first());
      assert.ok(!everyColumn.includes(result.json.key.slice(8)), 'the secret part of the key is stored');

      const me = await call(stack.url, 'GET', '/v1/me', { key: result.json.key });
      assert.equal(me.status, 200);
      assert.equal(me.body.key.id, result.json.id);
      assert.equal(me.body.key.label, 'ops agent');
    });

    it('gives each key a different secret', async () => {
      const a = await runAdmin(['create-key', '--email', 'keys@x.test', '--label', 'a'], env);
      const b = await runAdmin(['create-key', '--email', 'keys@x.test', '--label', 'b'], env);
      assert.notEqual(a.json.key, b.json.key);
      assert.notEqual(a.json.id, b.json.id);
    });

    it('fails for an unknown principal', async () => {
      const result = await runAdmin(['create-key', '--email', 'ghost@x.test', '--label', 'x'], env);
      assert.equal(result.code, 1);
      assert.equal(result.json.error.code, 'not_found');
    });
  });

  describe('set-plan and revoke-key', () => {
    it('changes the plan the API sees, down to 403 plan_required and back', async () => {
      const created = await runAdmin(['create-principal', '--email', 'plans@x.test', '--name', 'Plans'], env);
      const key = (await runAdmin(['create-key', '--email', 'plans@x.test', '--label', 'k'], env)).json.key;
      const free = await runAdmin(['set-plan', '--tenant', created.json.tenant_id, '--plan', 'free'], env);
      assert.equal(free.code, 0, free.stderr);
      assert.deepEqual(free.json, { tenant_id: created.json.tenant_id, plan: 'free' });
      assert.equal((await call(stack.url, 'GET', '/v1/me', { key })).body.error.code, 'plan_required');
      await runAdmin(['set-plan', '--tenant', created.json.tenant_id, '--plan', 'enterprise'], env);
      const me = await call(stack.url, 'GET', '/v1/me', { key });
      assert.equal(me.status, 200);
      assert.equal(me.body.plan, 'enterprise');
    });

    it('refuses an unknown plan or tenant', async () => {
      assert.equal((await runAdmin(['set-plan', '--tenant', 'ten_x', '--plan', 'platinum'], env)).code, 2);
      const unknown = await runAdmin(['set-plan', '--tenant', 'ten_nope', '--plan', 'pro'], env);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.json.error.code, 'not_found');
    });

    it('revokes a key so that it answers 401', async () => {
      await runAdmin(['create-principal', '--email', 'revoke@x.test', '--name', 'Revoke'], env);
      const created = await runAdmin(['create-key', '--email', 'revoke@x.test', '--label', 'doomed'], env);
      assert.equal((await call(stack.url, 'GET', '/v1/me', { key: created.json.key })).status, 200);
      const revoked = await runAdmin(['revoke-key', '--id', created.json.id], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(revoked.json.id, created.json.id);
      assert.ok(revoked.json.revoked_at);
      assert.equal((await call(stack.url, 'GET', '/v1/me', { key: created.json.key })).status, 401);
    });
  });
});
