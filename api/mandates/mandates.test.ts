import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONSENT_VERSION, confirmGrant, revokeMandate, startGrant } from '../../activities/mandates/mandates';
import { AuditEvent, Mandate } from '../../db/models';
import { latestMail } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { assertPaging } from '../../test/paging';
import { grantMandate, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

describe('mandates', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ worker: false });
  });
  after(() => stack.close());

  const me = (account: Account) => call(stack.url, 'GET', '/v1/me', { key: account.key });
  const deps = (flags = stack.deps.config.flags.values) => ({
    db: stack.deps.db,
    secret: stack.deps.secret,
    mailer: stack.deps.mailer,
    codeLimits: stack.deps.codeLimits,
    flags,
    codeTtlMs: 60_000,
    appUrl: 'http://localhost:3000/app',
    receipts: stack.deps.receipts,
    publicUrl: stack.deps.config.publicUrl,
  });
  const actor = (account: Account) => ({ type: 'principal' as const, id: account.principalId, ip: '203.0.113.7' });

  it('are not active until the e-mailed code is confirmed; then documents:sign joins the key', async () => {
    const account = await createAccount(stack.deps.db);
    const principal = await principalOf(stack, account);
    const pending = await startGrant(
      deps(),
      principal,
      { apiKeyId: account.keyId, name: 'Pending one', level: 'L2', mode: 'inbound', consentAccepted: true },
      actor(account),
    );
    assert.equal(pending.status, 'pending');
    assert.equal(pending.consent_version, CONSENT_VERSION);
    const before = await me(account);
    assert.ok(!before.body.scopes.includes('documents:sign'));
    assert.equal(before.body.signing_mandate, undefined);
    assert.deepEqual(
      (await call(stack.url, 'GET', '/v1/mandates', { key: account.key })).body.data,
      [],
      'a pending mandate is not granted yet',
    );

    await assert.rejects(confirmGrant(deps(), principal, pending.id, '000000', actor(account)), /not right/);
    const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, principal.email, 'mandate-code'))!.text)![1];
    const active = await confirmGrant(deps(), principal, pending.id, code, actor(account));
    assert.equal(active.status, 'active');
    await assert.rejects(confirmGrant(deps(), principal, pending.id, code, actor(account)), /already active/);

    const after = await me(account);
    assert.ok(after.body.scopes.includes('documents:sign'));
    assert.deepEqual(after.body.signing_mandate, {
      id: active.id,
      name: 'Pending one',
      confirmation_level: 'L2',
      mode: 'inbound',
      expires_at: null,
    });
    assert.deepEqual(after.body.allowed_confirmation_levels, ['L1', 'L2']);
    const trail = await AuditEvent.query(stack.deps.db)
      .where({ tenant_id: account.tenantId })
      .whereIn('action', ['mandate.consent_accepted', 'mandate.granted'])
      .orderBy('created_at');
    assert.deepEqual(
      trail.map((row) => row.action),
      ['mandate.consent_accepted', 'mandate.granted'],
    );
    for (const row of trail) {
      assert.equal(row.ip, '203.0.113.7');
      assert.equal((row.data as { consent_version: string }).consent_version, CONSENT_VERSION);
    }
  });

  it('refuses an L2 grant while l2_signing is off, a grant without consent, another principal’s key, a past expiry and a plan without API access', async () => {
    const account = await createAccount(stack.deps.db);
    const principal = await principalOf(stack, account);
    const base = { apiKeyId: account.keyId, name: 'x', level: 'L1' as const, mode: 'both' as const, consentAccepted: true };
    await assert.rejects(
      startGrant(deps({ ...stack.deps.config.flags.values, l2_signing: false }), principal, { ...base, level: 'L2' }, actor(account)),
      (error: Error & { code?: string }) => error.code === 'feature_disabled',
    );
    await assert.rejects(
      startGrant(deps(), principal, { ...base, consentAccepted: false }, actor(account)),
      (error: Error & { code?: string }) => error.code === 'invalid_request',
    );
    const other = await createAccount(stack.deps.db);
    await assert.rejects(
      startGrant(deps(), principal, { ...base, apiKeyId: other.keyId }, actor(account)),
      (error: Error & { code?: string }) => error.code === 'not_found',
    );
    await assert.rejects(
      startGrant(deps(), principal, { ...base, expiresAt: new Date(Date.now() - 1000) }, actor(account)),
      (error: Error & { code?: string }) => error.code === 'invalid_request',
    );
    const free = await createAccount(stack.deps.db, { plan: 'free' });
    await assert.rejects(
      startGrant(deps(), await principalOf(stack, free), { ...base, apiKeyId: free.keyId }, actor(free)),
      (error: Error & { code?: string }) => error.code === 'plan_required',
    );
  });

  it('L1 mandates allow L1 only; the newest mandate in force is shown; revoking keeps the scope while another is in force', async () => {
    const account = await createAccount(stack.deps.db);
    const l1 = await grantMandate(stack, account, { level: 'L1', name: 'Confirm each' });
    assert.deepEqual((await me(account)).body.allowed_confirmation_levels, ['L1']);
    const l2 = await grantMandate(stack, account, { level: 'L2', name: 'Automatic' });
    const shown = await me(account);
    assert.equal(shown.body.signing_mandate.id, l2.id);
    assert.deepEqual(shown.body.allowed_confirmation_levels, ['L1', 'L2']);

    const principal = await principalOf(stack, account);
    await revokeMandate(stack.deps.db, principal, l2.id, actor(account));
    const afterOne = await me(account);
    assert.ok(afterOne.body.scopes.includes('documents:sign'), 'the L1 mandate still holds the scope');
    assert.equal(afterOne.body.signing_mandate.id, l1.id);
    assert.deepEqual(afterOne.body.allowed_confirmation_levels, ['L1']);
    await revokeMandate(stack.deps.db, principal, l1.id, actor(account));
    const afterAll = await me(account);
    assert.ok(!afterAll.body.scopes.includes('documents:sign'));
    assert.equal(afterAll.body.signing_mandate, undefined);
    const revokes = await AuditEvent.query(stack.deps.db).where({ tenant_id: account.tenantId, action: 'mandate.revoked' });
    assert.equal(revokes.length, 2);
    assert.ok(
      revokes.every((row) => row.ip === '203.0.113.7' && (row.data as { consent_version: string }).consent_version === CONSENT_VERSION),
    );
  });

  it('lists this key’s mandates only, with their status, and answers 404 for another key’s', async () => {
    const account = await createAccount(stack.deps.db, { label: 'first key' });
    const mandate = await grantMandate(stack, account, { level: 'L2', name: 'Mine', mode: 'outbound' });
    const sibling = await createAccount(stack.deps.db);
    const theirs = await grantMandate(stack, sibling, { level: 'L1' });
    const list = await call(stack.url, 'GET', '/v1/mandates', { key: account.key });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((m: { mandate_id: string }) => m.mandate_id),
      [mandate.id],
    );
    const one = await call(stack.url, 'GET', `/v1/mandates/${mandate.id}`, { key: account.key });
    assert.deepEqual(
      { ...one.body, granted_at: undefined },
      {
        mandate_id: mandate.id,
        name: 'Mine',
        key: { id: account.keyId, label: 'first key' },
        confirmation_level: 'L2',
        mode: 'outbound',
        status: 'active',
        expires_at: null,
        consent_version: CONSENT_VERSION,
        granted_at: undefined,
        revoked_at: null,
        policy: null,
        daily_l2_cap: 25,
        l2_applies_today: 0,
        credential: mandate.credential_jws,
      },
    );
    assert.match(one.body.credential, /^[\w-]+\.[\w-]+\.[\w-]+(~[\w-]+)+~$/, 'an SD-JWT: its JWT and the disclosures');
    assert.equal((await call(stack.url, 'GET', `/v1/mandates/${theirs.id}`, { key: account.key })).status, 404);
    await Mandate.query(stack.deps.db)
      .findById(mandate.id)
      .patch({ expires_at: new Date(Date.now() - 1000) });
    assert.equal((await call(stack.url, 'GET', `/v1/mandates/${mandate.id}`, { key: account.key })).body.status, 'expired');
  });

  it('pages the key’s mandates with limit and cursor; a bad cursor or limit is 400; no key is 401', async () => {
    const account = await createAccount(stack.deps.db);
    for (const level of ['L1', 'L2', 'L1'] as const) await grantMandate(stack, account, { level });
    await revokeMandate(
      stack.deps.db,
      await principalOf(stack, account),
      (await grantMandate(stack, account, { level: 'L2' })).id,
      actor(account),
    );
    await startGrant(
      deps(),
      await principalOf(stack, account),
      { apiKeyId: account.keyId, name: 'Not granted yet', level: 'L1', mode: 'both', consentAccepted: true },
      actor(account),
    );
    await assertPaging(stack.url, '/v1/mandates', account.key, 'mandate_id', 4);
    assert.equal((await call(stack.url, 'GET', '/v1/mandates')).status, 401);
    assert.deepEqual((await call(stack.url, 'GET', '/v1/mandates', { key: (await createAccount(stack.deps.db)).key })).body, {
      data: [],
      next_cursor: null,
    });
  });
});
