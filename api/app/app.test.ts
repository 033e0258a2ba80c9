import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPlan } from '../../activities/accounts/accounts';
import { Mandate, Principal } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { createDocument, latestMail, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { signaturePng } from '../../test/images';
import { AppClient, grantMandate } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

let stack: Stack;
let account: Account;
let app: AppClient;
let ndaPdf: Uint8Array;

before(async () => {
  stack = await startStack();
  account = await createAccount(stack.deps.db, { name: 'Ada Principal' });
  app = await new AppClient(stack, account.email).login();
  ndaPdf = (await buildSampleNda()).pdf;
});
after(() => stack?.close());

const path = (suffix: string) => `${app.appPath}${suffix}`;

async function page(suffix: string): Promise<{ status: number; html: string }> {
  const response = await app.get(path(suffix));
  return { status: response.status, html: await response.text() };
}

async function csrf(): Promise<string> {
  return /name="_csrf" value="([^"]*)"/.exec((await page('/')).html)![1];
}

/** A multipart form post of the signed-in principal (files as the browser sends them). */
async function postMultipart(
  suffix: string,
  fields: Record<string, string>,
  files: Record<string, { name: string; type: string; bytes: Uint8Array }>,
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, file] of Object.entries(files)) form.append(name, new Blob([file.bytes], { type: file.type }), file.name);
  return fetch(`${stack.url}${path(suffix)}`, { method: 'POST', body: form, headers: { cookie: app.cookie }, redirect: 'manual' });
}

const notice = (html: string) => /data-testid="notice">([^<]*)</.exec(html)?.[1] ?? '';

describe('sign-in and form tokens', () => {
  it('every page sends a visitor without a session to sign in, then back', async () => {
    const visitor = new AppClient(stack, account.email);
    for (const suffix of [
      '/',
      '/signature',
      '/signature/image',
      '/keys',
      '/keys/key_x/revoke',
      '/mandates',
      '/mandates/new',
      '/mandates/mdt_x/confirm',
      '/mandates/mdt_x/revoke',
      '/templates',
    ]) {
      const response = await visitor.get(path(suffix));
      assert.equal(response.status, 302, suffix);
      assert.equal(response.headers.get('location'), `${path('/login')}?next=${encodeURIComponent(path(suffix))}`, suffix);
    }
    for (const suffix of ['/keys', '/signature', '/mandates/new', '/templates']) {
      const response = await visitor.post(path(suffix), { label: 'x' });
      assert.equal(response.status, 302, suffix);
      assert.match(response.headers.get('location') ?? '', /\/login\?next=/);
    }
  });

  it('a POST without the session’s form token is refused with a 400 page, and changes nothing', async () => {
    const mandate = await grantMandate(stack, account, { level: 'L1', name: 'token check' });
    const keysBefore = (await page('/keys')).html.match(/data-testid="key-row"/g)?.length;
    const posts: Array<[string, Record<string, string>]> = [
      ['/keys', { label: 'sneaky' }],
      [`/keys/${account.keyId}/revoke`, {}],
      ['/signature', { drawn: `data:image/png;base64,${signaturePng().toString('base64')}` }],
      ['/mandates/new', { api_key_id: account.keyId, name: 'x', level: 'L1', mode: 'both', consent: 'accepted' }],
      [`/mandates/${mandate.id}/confirm`, { code: '123456' }],
      [`/mandates/${mandate.id}/revoke`, {}],
      ['/templates', { name: 'x', widgets: '[]' }],
    ];
    for (const [suffix, fields] of posts) {
      for (const token of [undefined, 'forged']) {
        const response = await app.post(path(suffix), token ? { ...fields, _csrf: token } : fields);
        assert.equal(response.status, 400, `${suffix} ${token}`);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await response.text(), /(role="alert"[^>]*>|<p>)This form has expired or did not come from this app/, suffix);
      }
    }
    const multipart = await postMultipart(
      '/templates',
      { name: 'x', widgets: '[]' },
      { pdf: { name: 'a.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(multipart.status, 400);
    // The right token from another site's page is still refused: the Origin must be this app's.
    const crossSite = await fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie, origin: 'https://evil.example' },
      body: new URLSearchParams({ label: 'cross-site', _csrf: await csrf() }).toString(),
      redirect: 'manual',
    });
    assert.equal(crossSite.status, 400, 'a cross-origin form post is refused');
    const sameSite = await fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie, origin: stack.url },
      body: new URLSearchParams({ label: 'same-site', _csrf: await csrf() }).toString(),
      redirect: 'manual',
    });
    assert.notEqual(sameSite.status, 400, 'a post from this origin passes the check');
    await call(stack.url, 'GET', '/v1/me', { key: account.key });
    assert.equal(
      (await page('/keys')).html.match(/data-testid="key-row"/g)?.length,
      (keysBefore ?? 0) + 1,
      'only the same-origin key was made',
    );
    assert.equal((await Mandate.query(stack.deps.db).findById(mandate.id))!.status, 'active');
    assert.equal((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status, 200);
    assert.equal((await Principal.query(stack.deps.db).findById(account.principalId))!.signature_sha256, null);
  });
});

describe('overview', () => {
  it('shows the signature status, keys, mandates, the plan, and open sign requests with their confirm links', async () => {
    const other = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    const { nda } = await seedSamples(stack, other);
    const agent = await createAccount(stack.deps.db, { name: 'Sam Signer' });
    const agentApp = await new AppClient(stack, agent.email).login();
    let html = await (await agentApp.get(path('/'))).text();
    assert.match(html, /data-testid="signature-status"><strong>Not stored yet/);
    assert.match(html, /Nothing is waiting for you/);
    assert.match(html, /data-testid="plan">Your account is on the <strong>business<\/strong> plan/);

    await grantMandate(stack, agent, { level: 'L1', mode: 'inbound', name: 'Inbound NDAs' });
    const created = await createDocument(stack, other, {
      template_id: nda.id,
      name: 'Overview NDA',
      send: true,
      signers: [
        { name: 'Sam Signer', email: agent.email },
        { name: 'Rey', email: `rey-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const request = await call(stack.url, 'POST', `/v1/documents/${created.body.document_id}/sign-requests`, {
      key: agent.key,
      body: { reason: 'Quarterly NDA' },
    });
    assert.equal(request.status, 201, request.text);

    html = await (await agentApp.get(path('/'))).text();
    const link = new URL(request.body.confirm_url).pathname;
    assert.ok(html.includes(`href="${link}" data-testid="sign-request-link"><strong>Overview NDA</strong>`), html);
    assert.match(html, /Quarterly NDA/);
    assert.match(html, /Inbound NDAs · L1 · test agent · <span class="badge active">active/);
    assert.equal((await agentApp.get(link)).status, 200);

    await setPlan(stack.deps.db, { tenantId: agent.tenantId, plan: 'pro' });
    assert.match(await (await agentApp.get(path('/'))).text(), /<strong>pro<\/strong> plan\. API access .* needs the Business plan/);
  });
});

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

describe('signature', () => {
  const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

  it('refuses a GIF and a text file with a clear message, stores a PNG and serves it back', async () => {
    const token = await csrf();
    for (const file of [
      { name: 'sig.gif', type: 'image/gif', bytes: gif },
      { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('not an image') },
    ]) {
      const refused = await postMultipart('/signature', { _csrf: token }, { image: file });
      assert.equal(refused.status, 415, file.name);
      assert.match(notice(await refused.text()), /must be a PNG or JPEG image/);
    }
    assert.equal((await page('/signature/image')).status, 404);
    const missing = await postMultipart('/signature', { _csrf: token }, {});
    assert.equal(missing.status, 400);

    const png = signaturePng(200, 60);
    const stored = await postMultipart('/signature', { _csrf: token }, { image: { name: 'sig.png', type: 'image/png', bytes: png } });
    assert.equal(stored.status, 302);
    const html = (await page('/signature?done=stored')).html;
    assert.match(notice(html), /Your signature is stored/);
    assert.match(html, /<img src="\/app\/signature\/image\?v=[0-9a-f]{12}" alt="Your stored signature">/);
    const image = await app.get(path('/signature/image'));
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), png);
    assert.match((await page('/')).html, /data-testid="signature-status">Stored \(png/);
  });

  it('stores a drawn signature posted as a PNG data URL, and refuses one that is not', async () => {
    const drawn = signaturePng(300, 90);
    const stored = await app.post(path('/signature'), { drawn: `data:image/png;base64,${drawn.toString('base64')}` }, path('/signature'));
    assert.equal(stored.status, 302);
    assert.deepEqual(Buffer.from(await (await app.get(path('/signature/image'))).arrayBuffer()), drawn);
    const bad = await app.post(path('/signature'), { drawn: 'data:image/gif;base64,R0lGOD' }, path('/signature'));
    assert.equal(bad.status, 415);
    assert.match(notice(await bad.text()), /could not be read as a PNG/);
    const big = await app.post(
      path('/signature'),
      { drawn: `data:image/png;base64,${Buffer.alloc(3 * 1024 * 1024).toString('base64')}` },
      path('/signature'),
    );
    assert.equal(big.status, 413);
    assert.match(notice(await big.text()), /larger than 2 MB/);
  });
});

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
    assert.match(await (await app.get(confirmPath)).text(), /We e-mailed a 6-digit code/);
    assert.match((await page('/mandates')).html, /data-testid="mandate-status">pending</);

    const code = /\b(\d{6})\b/.exec((await latestMail(stack, account.email, 'mandate-code'))!.text)![1];
    const wrong = await app.post(confirmPath, { code: code === '000000' ? '111111' : '000000' }, confirmPath);
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
    const code = /\b(\d{6})\b/.exec(second.text)![1];
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

describe('templates', () => {
  const widgets = [
    { id: 'buyer-sign', type: 'signature', role: 'Buyer', page: 1, x: 72, y: 650, width: 200, height: 40 },
    { id: 'buyer-date', type: 'date', role: 'Buyer', page: 1, x: 300, y: 660, width: 120, height: 20, required: false },
  ];

  it('shows a bad widget’s error next to the form, keeping what was typed', async () => {
    const token = await csrf();
    const typed = JSON.stringify([
      { ...widgets[0], type: 'stamp' },
      { ...widgets[1], page: 9 },
    ]);
    const refused = await postMultipart(
      '/templates',
      { _csrf: token, name: 'Broken <one>', widgets: typed },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(refused.status, 400);
    const html = await refused.text();
    assert.match(html, /data-testid="form-errors"[\s\S]*Widget 1 \(“buyer-sign”\), “type”: /);
    assert.match(html, /value="Broken &lt;one&gt;"/);
    assert.ok(html.includes(`>${typed.replace(/"/g, '&quot;')}</textarea>`), 'the JSON is kept');

    const pageOut = await postMultipart(
      '/templates',
      { _csrf: token, name: 'Off page', widgets: JSON.stringify([{ ...widgets[0], page: 3 }]) },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.match(await pageOut.text(), /Widget 1 \(“buyer-sign”\), “page”: the PDF has 1 page/);
    const notJson = await postMultipart(
      '/templates',
      { _csrf: token, name: 'x', widgets: '[{ id: 1 ' },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.match(await notJson.text(), /Not valid JSON/);
    const notPdf = await postMultipart(
      '/templates',
      { _csrf: token, name: 'x', widgets: JSON.stringify(widgets) },
      { pdf: { name: 'nda.pdf', type: 'application/pdf', bytes: Buffer.from('hello') } },
    );
    // The safe intake refuses it (422 invalid_pdf), on a PDF thread.
    assert.equal(notPdf.status, 422);
    assert.match(await notPdf.text(), /The file is not a readable PDF/);
  });

  it('adds a good template, lists it, and the API sees it', async () => {
    const created = await postMultipart(
      '/templates',
      { _csrf: await csrf(), name: 'Purchase order', roles: 'Buyer', widgets: JSON.stringify(widgets) },
      { pdf: { name: 'po.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(created.status, 302);
    const html = (await page('/templates?done=created')).html;
    assert.match(
      html,
      /<th scope="row">Purchase order<\/th><td data-label="Pages">1<\/td><td data-label="Signer roles">Buyer<\/td><td data-label="Fields">2<\/td>/,
    );
    const listed = await call(stack.url, 'GET', '/v1/templates', { key: account.key });
    assert.equal(listed.status, 200, listed.text);
    const template = listed.body.data.find((candidate: { name: string }) => candidate.name === 'Purchase order');
    assert.ok(template, listed.text);
    assert.deepEqual(template.roles, ['Buyer']);
  });
});
