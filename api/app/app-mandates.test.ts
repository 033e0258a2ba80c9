import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Mandate } from '../../db/models';
import { latestMail } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { account, app, notice, page, path, stack, useAppStack } from '../../test/fixtures/app';
import { call } from '../../test/http';

useAppStack();

describe('mandates', () => {
  it('grants an L1 mandate: the form, the clickwrap, the e-mailed code, then documents:sign on the key', async () => {
    const form = (await page('/mandates/new')).html;
    assert.match(form, /data-testid="consent-version">mandate-consent-v2</);
    assert.match(form, /I authorize the API key named below/);
    assert.match(form, /data-testid="level-L2"/);
    // No third level is offered (matched on the choices, not on random tokens and key prefixes in the page).
    assert.doesNotMatch(form, /value="L3"|<strong>L3/);
    assert.equal([...form.matchAll(/name="level" value="(L\d)"/g)].map((match) => match[1]).join(','), 'L1,L2');

    const fields = {
      api_key_id: account.keyId,
      name: 'Supplier NDAs',
      level: 'L1',
      mode: 'outbound',
      expires_on: '2999-12-31',
      consent_version: 'mandate-consent-v2',
    };
    const unaccepted = await app.post(path('/mandates/new'), fields, path('/mandates/new'));
    assert.equal(unaccepted.status, 400);
    const again = await unaccepted.text();
    assert.match(again, /Tick “I accept”/);
    assert.match(again, /value="Supplier NDAs"/, 'what was typed is kept');

    const started = await app.post(path('/mandates/new'), { ...fields, consent: 'accepted' }, path('/mandates/new'));
    assert.equal(started.status, 302);
    const confirmPath = started.headers.get('location')!;
    assert.match(confirmPath, /\/app\/mandates\/mdt_[0-9A-Za-z]{20}\/confirm$/);
    const mandateId = confirmPath.split('/')[3];
    assert.match(await (await app.get(confirmPath)).text(), /We e-mailed a 10-digit code and a confirmation link/);
    assert.match((await page('/mandates')).html, /data-testid="mandate-status">pending</);

    const code = /\b(\d{10}|\d{6})\b/.exec((await latestMail(stack, account.email, 'mandate-code'))!.text)![1];
    const wrong = await app.post(confirmPath, { code: (code.startsWith('0') ? '1' : '0').repeat(code.length) }, confirmPath);
    assert.equal(wrong.status, 400);
    assert.match(notice(await wrong.text()), /That code is not right/);
    const granted = await app.post(confirmPath, { code }, confirmPath);
    assert.equal(granted.status, 302);
    const list = (await app.get(granted.headers.get('location')!)).text();
    assert.match(notice(await list), /“Supplier NDAs” is active: the key “test agent” now has the scope documents:sign/);

    const mandate = (await Mandate.query(stack.deps.db).findById(mandateId))!;
    assert.equal(mandate.expires_at!.toISOString(), '2999-12-31T23:59:59.999Z');
    assert.equal(mandate.mode, 'outbound');
    const me = await call(stack.url, 'GET', '/v1/me', { key: account.key });
    assert.ok(me.body.scopes.includes('documents:sign'));
    assert.equal(me.body.signing_mandate.id, mandateId);
  });

  it('sends a new code on request, and revokes after a confirmation step', async () => {
    const started = await app.post(
      path('/mandates/new'),
      { api_key_id: account.keyId, name: 'Temp L2', level: 'L2', mode: 'both', consent: 'accepted', consent_version: 'mandate-consent-v2' },
      path('/mandates/new'),
    );
    const confirmPath = started.headers.get('location')!;
    const first = (await latestMail(stack, account.email, 'mandate-code'))!;
    const resent = await app.post(confirmPath, { resend: '1' }, confirmPath);
    assert.equal(resent.status, 302);
    assert.match(notice(await (await app.get(resent.headers.get('location')!)).text()), /A new code is on its way/);
    const second = (await latestMail(stack, account.email, 'mandate-code'))!;
    assert.notEqual(second, first, 'a second mail');
    const code = /\b(\d{10}|\d{6})\b/.exec(second.text)![1];
    assert.equal((await app.post(confirmPath, { code }, confirmPath)).status, 302);
    const mandateId = confirmPath.split('/')[3];

    const confirm = (await page(`/mandates/${mandateId}/revoke`)).html;
    assert.match(confirm, /Documents already completed stay signed/);
    const revoked = await app.post(path(`/mandates/${mandateId}/revoke`), {}, path('/mandates'));
    assert.equal(revoked.status, 302);
    assert.match(notice(await (await app.get(revoked.headers.get('location')!)).text()), /“Temp L2” is revoked/);
    assert.equal((await Mandate.query(stack.deps.db).findById(mandateId))!.status, 'revoked');
  });

  it('does not offer L2 when l2_signing is off, and the rule refuses a posted L2', async () => {
    const off = await stack.withEnv({ SVC_FF_L2_SIGNING: 'false' });
    const headers = { cookie: app.cookie };
    const html = await (await fetch(`${off.url}${path('/mandates/new')}`, { headers })).text();
    assert.match(html, /data-testid="l2-disabled"/);
    assert.doesNotMatch(html, /data-testid="level-L2"/);
    const token = /name="_csrf" value="([^"]*)"/.exec(html)![1];
    const refused = await fetch(`${off.url}${path('/mandates/new')}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: token,
        api_key_id: account.keyId,
        name: 'x',
        level: 'L2',
        mode: 'both',
        consent: 'accepted',
        consent_version: 'mandate-consent-v2',
      }).toString(),
      redirect: 'manual',
    });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /Choose a confirmation level \(L1\)/);
    await off.close();
  });

  it('grants limits set in the form: listed in plain words before the code confirms them, kept on the mandate; a wrong one is shown next to the form', async () => {
    const form = (await page('/mandates/new')).html;
    assert.match(form, /data-testid="grant-policy"/);
    assert.ok(form.indexOf('data-testid="grant-policy"') < form.indexOf('data-testid="consent-text"'), 'the limits come before the terms');
    const base = {
      api_key_id: account.keyId,
      name: 'Acme NDAs',
      level: 'L2',
      mode: 'inbound',
      consent: 'accepted',
      consent_version: 'mandate-consent-v2',
      policy_counterparties: 'acme.com\nbob@partner.example',
      policy_daily_cap: '5',
      policy_per_max: '2',
      policy_per_period: 'week',
      policy_hours_from: '09:00',
      policy_hours_to: '17:30',
      policy_time_zone: 'Europe/Prague',
    };
    const wrong = await app.post(path('/mandates/new'), { ...base, policy_daily_cap: 'many', policy_hours_to: '' }, path('/mandates/new'));
    assert.equal(wrong.status, 400);
    const shown = await wrong.text();
    assert.match(shown, /enter a whole number/);
    assert.match(shown, /Give both hours, or neither/);
    assert.match(shown, /acme\.com\nbob@partner\.example</, 'what was typed is kept');

    const started = await app.post(path('/mandates/new'), base, path('/mandates/new'));
    assert.equal(started.status, 302, await started.text());
    const confirmPath = started.headers.get('location')!;
    const confirm = await (await app.get(confirmPath)).text();
    for (const line of [
      'Only with: acme.com, bob@partner.example.',
      'At most 5 L2 signatures a UTC day.',
      'At most 2 signatures with any one counterparty a week.',
      'Only from 09:00 to 17:30 (Europe/Prague).',
    ])
      assert.ok(confirm.includes(`<li>${line}</li>`), `${line} on the confirmation page`);
    const mandate = (await Mandate.query(stack.deps.db).findById(confirmPath.split('/')[3]))!;
    assert.deepEqual(mandate.policy, {
      counterparties: ['acme.com', 'bob@partner.example'],
      daily_cap: 5,
      per_counterparty: { max: 2, period: 'week' },
      hours: { from: '09:00', to: '17:30', time_zone: 'Europe/Prague' },
    });
  });

  it('a past expiry or a key of someone else is shown next to the form', async () => {
    const base = { name: 'x', level: 'L1', mode: 'both', consent: 'accepted', consent_version: 'mandate-consent-v2' };
    const past = await app.post(
      path('/mandates/new'),
      { ...base, api_key_id: account.keyId, expires_on: '2001-01-01' },
      path('/mandates/new'),
    );
    assert.equal(past.status, 400);
    assert.match(await past.text(), /The expiry must be in the future/);
    const stranger = await createAccount(stack.deps.db);
    const theirs = await app.post(path('/mandates/new'), { ...base, api_key_id: stranger.keyId }, path('/mandates/new'));
    assert.equal(theirs.status, 404);
    assert.match(await theirs.text(), /No such API key of yours/);
  });
});
