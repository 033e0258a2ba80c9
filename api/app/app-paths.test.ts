import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGrant } from '../../activities/mandates/mandates';
import { randomBase62 } from '../../lib/ids';
import { latestMail, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { AppClient, challengeIn, giveAppearance, grantMandate, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { mandateDeps } from './pages/common';

let stack: Stack;

before(async () => {
  stack = await startStack();
});
after(() => stack?.close());

const NAV = ['/', '/signature', '/keys', '/mandates', '/templates'];
const codeOf = (text: string | undefined) => /\b(\d{10}|\d{6})\b/.exec(text ?? '')?.[1] ?? '';

/** The stack as seen through an API process whose SVC_APP_URL is `appUrl` (only its path matters for routing). */
async function viewWith(appUrl: string | undefined): Promise<Stack> {
  if (!appUrl) return stack;
  const server = await stack.withEnv({ SVC_APP_URL: appUrl });
  return { ...stack, url: server.url, config: { ...stack.config, appUrl } };
}

/** Links (href, src) and form actions of a page that lead into the app, but not to static files or downloads. */
function targets(html: string, appPath: string): { links: string[]; forms: string[] } {
  const inApp = (target: string) =>
    (target === appPath || target.startsWith(`${appPath}/`)) && !target.startsWith('//') && !/^\/(static|files)\//.test(target);
  const decode = (value: string) => value.replace(/&amp;/g, '&');
  const links = [...html.matchAll(/\s(?:href|src)="([^"]+)"/g)].map((m) => decode(m[1])).filter(inApp);
  // Forms that post (a GET form, the documents search, is a link with parameters: crawled as the page it is).
  const forms = [...html.matchAll(/<form[^>]*\smethod="post"[^>]*\saction="([^"]+)"/g)].map((m) => decode(m[1])).filter(inApp);
  for (const m of html.matchAll(/<form[^>]*\smethod="get"[^>]*\saction="([^"]+)"/g)) links.push(decode(m[1]));
  return { links, forms };
}

/** Sets up what every page shows (a stored signature, mandates active and pending, an open sign request) and crawls the app. */
async function crawl(view: Stack, secure: boolean): Promise<void> {
  const appPath = new URL(view.config.appUrl).pathname.replace(/\/$/, '');
  const account = await createAccount(stack.deps.db, { name: 'Pat Principal' });
  await giveAppearance(stack, account);
  await grantMandate(stack, account, { level: 'L1', name: 'Crawled' });
  const principal = await principalOf(stack, account);
  await startGrant(
    mandateDeps(stack.deps),
    principal,
    { apiKeyId: account.keyId, name: 'Pending', level: 'L1', mode: 'both', consentAccepted: true },
    { type: 'principal', id: principal.id },
  );
  const sender = await createAccount(stack.deps.db);
  const { nda } = await seedSamples(stack, sender);
  const guest = `guest-${randomBase62(6).toLowerCase()}@example.test`;
  const created = await call(view.url, 'POST', '/v1/documents', {
    key: sender.key,
    body: {
      template_id: nda.id,
      name: 'Crawl NDA',
      send: true,
      signers: [
        { name: 'Pat', email: account.email },
        { name: 'Gus Guest', email: guest },
      ],
    },
  });
  assert.equal(created.status, 201, created.text);
  const request = await call(view.url, 'POST', `/v1/documents/${created.body.document_id}/sign-requests`, {
    key: account.key,
    body: { reason: 'crawl' },
  });
  assert.equal(request.status, 201, request.text);

  // Sign in: the session cookie is Secure whenever the app's address is https.
  const app = new AppClient(view, account.email);
  const asked = await app.post(`${appPath}/login`, { email: account.email });
  assert.equal(asked.status, 200);
  const verified = await app.post(`${appPath}/login/verify`, {
    email: account.email,
    code: codeOf((await latestMail(stack, account.email, 'login-code'))?.text),
    challenge: challengeIn(await asked.text()),
  });
  assert.equal(verified.status, 302);
  const cookie = verified.headers.get('set-cookie') ?? '';
  assert.match(cookie, /^svc_app=/);
  assert.equal(/;\s*secure/i.test(cookie), secure, `login cookie: ${cookie}`);

  const confirmPage = new URL(request.body.confirm_url).pathname;
  assert.ok(confirmPage.startsWith(`${appPath}/sign-request/`), confirmPage);
  const queue = [...NAV.map((page) => `${appPath}${page}`), confirmPage];
  const seen = new Set<string>();
  const forms = new Set<string>();
  while (queue.length > 0) {
    const target = queue.shift()!;
    if (seen.has(target)) continue;
    seen.add(target);
    const response = await app.get(target);
    assert.equal(response.status, 200, `GET ${target}: ${response.status} ${response.headers.get('location') ?? ''}`);
    if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) continue;
    const found = targets(await response.text(), appPath);
    queue.push(...found.links);
    for (const action of found.forms) forms.add(action);
  }
  assert.ok(seen.size >= 12, `crawled ${[...seen].join(', ')}`);

  // Every form reaches its handler with the session read: a forged token is refused there (400), never sent to sign in.
  const logout = `${appPath}/logout`;
  assert.ok(forms.has(logout));
  for (const action of [...forms].filter((form) => form !== logout)) {
    const response = await fetch(`${view.url}${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie },
      body: '_csrf=forged',
      redirect: 'manual',
    });
    assert.equal(response.status, 400, `POST ${action}: ${response.status} ${response.headers.get('location') ?? ''}`);
    assert.match(await response.text(), /This form has expired or did not come from this app/, action);
  }
  const token = /name="_csrf" value="([^"]*)"/.exec(await (await app.get(`${appPath}/`)).text())![1];
  const out = await fetch(`${view.url}${logout}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie },
    body: `_csrf=${token}`,
    redirect: 'manual',
  });
  assert.equal(out.headers.get('location'), `${appPath}/login`);
  assert.equal(
    (await app.get(`${appPath}/keys`)).headers.get('location'),
    `${appPath}/login?next=${encodeURIComponent(`${appPath}/keys`)}`,
    'the session ended',
  );

  // The sign page of a guest signer, its code step and what the verified session reads.
  const signUrl = created.body.signers[1].sign_url as string;
  const signPath = new URL(signUrl).pathname;
  assert.ok(signPath.startsWith(`${appPath}/sign/`), signPath);
  const page = await fetch(`${view.url}${signPath}`);
  assert.equal(page.status, 200);
  assert.ok((await page.text()).includes(`data-base="${signPath}"`));
  const sent = await call(view.url, 'POST', `${signPath}/code`);
  assert.equal(sent.status, 200);
  const verify = await call(view.url, 'POST', `${signPath}/verify`, {
    body: { code: codeOf((await latestMail(stack, guest, 'sign-code'))?.text), challenge: sent.body.challenge },
  });
  assert.equal(verify.status, 200, verify.text);
  const signCookie = verify.headers.get('set-cookie') ?? '';
  assert.match(signCookie, new RegExp(`path=${appPath}/sign/`, 'i'));
  assert.equal(/;\s*secure/i.test(signCookie), secure, `sign-session cookie: ${signCookie}`);
  const headers = { cookie: signCookie.split(';')[0] };
  assert.equal((await call(view.url, 'GET', `${signPath}/state`, { headers })).status, 200);
  assert.equal((await fetch(`${view.url}${signPath}/document.pdf`, { headers })).status, 200);
}

describe('the app works at the root of its host, at /app and at a deeper path', () => {
  it('at the root (SVC_APP_URL=https://app.example.test): every page, link and form, the sign page and the confirm page; Secure cookies', async () => {
    await crawl(await viewWith('https://app.example.test'), true);
  });

  it('at /app (the default, over http): the same, and cookies without Secure', async () => {
    await crawl(await viewWith(undefined), false);
  });

  it('at a deeper path (SVC_APP_URL=https://example.test/portal/app): the same, with Secure cookies', async () => {
    await crawl(await viewWith('https://example.test/portal/app'), true);
  });

  it('with the app at the root, GET / is the app (sign-in), not the API banner', async () => {
    const view = await viewWith('https://app.example.test');
    const root = await fetch(`${view.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/login?next=%2F');
    const banner = await fetch(`${stack.url}/`);
    assert.equal(((await banner.json()) as { name: string }).name, 'Agents API', 'with the app at /app, / is still the banner');
  });
});
