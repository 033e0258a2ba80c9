import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setPlan } from '../../activities/accounts/accounts';
import { createAccount } from '../../test/factories';
import { app, notice, page, path, stack, useAppStack } from '../../test/fixtures/app';
import { call } from '../../test/http';
import { AppClient } from '../../test/principal';

useAppStack();

describe('API keys', () => {
  it('creates a key shown once that works on the API, and revokes it after a confirmation', async () => {
    const created = await app.post(path('/keys'), { label: 'Invoice bot' }, path('/keys'));
    assert.equal(created.status, 201);
    const html = await created.text();
    assert.match(html, /Copy this key now/);
    const raw = /data-testid="new-key">(svc_[0-9A-Za-z]{32})</.exec(html)?.[1];
    assert.ok(raw, html);

    const me = await call(stack.url, 'GET', '/v1/me', { key: raw });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.key.label, 'Invoice bot');
    assert.ok(!me.body.scopes.includes('documents:sign'));

    const list = (await page('/keys')).html;
    assert.ok(!list.includes(raw), 'the raw key is never shown again');
    assert.ok(list.includes(`<code>${raw.slice(0, 8)}…</code>`));
    assert.match(list, /documents:write/);

    const confirm = await page(`/keys/${me.body.key.id}/revoke`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /Revoke the key “<strong>Invoice bot<\/strong>”/);
    const revoked = await app.post(path(`/keys/${me.body.key.id}/revoke`), {}, path('/keys'));
    assert.equal(revoked.status, 302);
    assert.equal(revoked.headers.get('location'), path('/keys?done=revoked'));
    assert.match(notice((await page('/keys?done=revoked')).html), /answers 401 from now on/);
    assert.equal((await call(stack.url, 'GET', '/v1/me', { key: raw })).status, 401);
  });

  it('a missing label is shown next to the form; another principal’s key is not found', async () => {
    const empty = await app.post(path('/keys'), { label: '  ' }, path('/keys'));
    assert.equal(empty.status, 400);
    assert.match(await empty.text(), /data-testid="form-errors"[\s\S]*Give the key a label/);
    const stranger = await createAccount(stack.deps.db);
    assert.equal((await page(`/keys/${stranger.keyId}/revoke`)).status, 404);
    assert.equal((await app.post(path(`/keys/${stranger.keyId}/revoke`), {}, path('/keys'))).status, 404);
    assert.equal((await call(stack.url, 'GET', '/v1/me', { key: stranger.key })).status, 200);
  });

  it('on the Free plan explains that keys need Business+, offers no button, and the rule refuses', async () => {
    const free = await createAccount(stack.deps.db);
    await setPlan(stack.deps.db, { tenantId: free.tenantId, plan: 'free' });
    const freeApp = await new AppClient(stack, free.email).login();
    const html = await (await freeApp.get(path('/keys'))).text();
    assert.match(html, /data-testid="plan-required"[\s\S]*need the <strong>Business<\/strong> plan or higher[\s\S]*<strong>free<\/strong>/);
    assert.ok(!html.includes('data-testid="create-key"'));
    const refused = await freeApp.post(path('/keys'), { label: 'nope' }, path('/keys'));
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /API keys need the Business plan or higher/);
  });
});
