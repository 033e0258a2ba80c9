import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiKey, Principal, Tenant } from '../../db/models';
import { sha256Hex } from '../../lib/ids';
import { buildSampleNda } from '../../lib/pdf/samples';
import { runAdmin } from '../../test/cli';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

describe('npm run admin', () => {
  let stack: Stack;
  let env: Record<string, string>;

  before(async () => {
    stack = await startStack({ worker: false });
    // The stack's database and data dir: templates' PDFs go to its blob store.
    env = { DATABASE_URL: stack.database.url, SVC_DATA_DIR: stack.env.SVC_DATA_DIR!, LOG_LEVEL: 'error' };
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
      const second = await runAdmin(
        ['create-principal', '--email', 'colleague@x.test', '--name', 'Colleague', '--tenant', first.json.tenant_id],
        env,
      );
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
      assert.match(noEmail.stderr, /Usage: npm run -s admin/);
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

  describe('templates', () => {
    async function tenantWithKey(email: string) {
      const created = await runAdmin(['create-principal', '--email', email, '--name', 'Templates'], env);
      const key = (await runAdmin(['create-key', '--email', email, '--label', 'templates'], env)).json.key as string;
      return { tenant: created.json.tenant_id as string, key };
    }

    it('seed-samples adds the NDA and the 50-page agreement once, usable by the API', async () => {
      const { tenant, key } = await tenantWithKey('seed@x.test');
      const first = await runAdmin(['seed-samples', '--tenant', tenant], env);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(
        first.json.templates.map((t: { page_count: number; roles: string[] }) => [t.page_count, t.roles.length]),
        [
          [1, 2],
          [50, 2],
        ],
      );
      const again = await runAdmin(['seed-samples', '--tenant', tenant], env);
      assert.deepEqual(
        again.json.templates.map((t: { template_id: string }) => t.template_id),
        first.json.templates.map((t: { template_id: string }) => t.template_id),
        'seeding twice adds nothing',
      );
      const listed = await call(stack.url, 'GET', '/v1/templates', { key });
      assert.equal(listed.body.data.length, 2);
      const created = await call(stack.url, 'POST', '/v1/documents', {
        key,
        body: {
          template_id: first.json.templates[1].template_id,
          name: 'From the sample',
          signers: [
            { name: 'A', email: 'a@x.test' },
            { name: 'B', email: 'b@x.test' },
          ],
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.page_count, 50);
    });

    it('create-template takes a PDF and a widgets file, and refuses bad widgets naming them', async () => {
      const { tenant, key } = await tenantWithKey('template@x.test');
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-admin-'));
      const pdf = path.join(directory, 'order.pdf');
      fs.writeFileSync(pdf, (await buildSampleNda()).pdf);
      const widgets = [
        { id: 'buyer-sign', type: 'signature', role: 'Buyer', page: 1, x: 60, y: 700, width: 180, height: 40 },
        {
          id: 'buyer-po',
          type: 'dropdown',
          role: 'Buyer',
          page: 1,
          x: 60,
          y: 660,
          width: 180,
          height: 20,
          required: false,
          options: ['Net 30', 'Net 60'],
        },
      ];
      const good = path.join(directory, 'widgets.json');
      fs.writeFileSync(good, JSON.stringify({ name: 'Purchase order', widgets }));
      const created = await runAdmin(['create-template', '--tenant', tenant, '--pdf', pdf, '--widgets', good], env);
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(
        { name: created.json.name, roles: created.json.roles, widgets: created.json.widgets, page_count: created.json.page_count },
        { name: 'Purchase order', roles: ['Buyer'], widgets: 2, page_count: 1 },
      );
      const shown = await call(stack.url, 'GET', `/v1/templates/${created.json.template_id}`, { key });
      assert.deepEqual(shown.body.widgets.find((w: { id: string }) => w.id === 'buyer-po').options, ['Net 30', 'Net 60']);

      const bad = path.join(directory, 'bad.json');
      fs.writeFileSync(
        bad,
        JSON.stringify([
          { ...widgets[0], page: 4 },
          { ...widgets[1], options: undefined },
        ]),
      );
      const refused = await runAdmin(['create-template', '--tenant', tenant, '--pdf', pdf, '--widgets', bad], env);
      assert.equal(refused.code, 1);
      assert.equal(refused.json.error.code, 'invalid_request');
      assert.match(refused.json.error.message, /widgets\.1\.options: a dropdown needs options/);

      const missing = await runAdmin(
        ['create-template', '--tenant', tenant, '--pdf', path.join(directory, 'nope.pdf'), '--widgets', good],
        env,
      );
      assert.equal(missing.code, 2);
      assert.match(missing.json.error.message, /--pdf: cannot read/);
      const notPdf = path.join(directory, 'not.pdf');
      fs.writeFileSync(notPdf, 'hello');
      const unreadable = await runAdmin(['create-template', '--tenant', tenant, '--pdf', notPdf, '--widgets', good], env);
      assert.equal(unreadable.code, 1);
      assert.match(unreadable.json.error.message, /not a readable PDF/);
    });
  });
});
