import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Template } from '../../db/models';
import { randomBase62 } from '../../lib/ids';
import { assertAccessible, launchBrowser, watchProblems } from '../../test/browser';
import { createDocument, seedSamples, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { signaturePng } from '../../test/images';
import { codeIn, type SmtpListener, startSmtpListener } from '../../test/smtp';
import { type Stack, startStack } from '../../test/stack';

// One principal, walked through the app in a real Chromium, with every e-mail read from a real SMTP
// listener: sign in, signature, keys, an L1 and an L2 mandate, an L1 confirm and decline, an L2
// sign and its notice, then the L2 mandate revoked.

let smtp: SmtpListener;
let stack: Stack;
let principal: Account;
let owner: Account;
let nda: Template;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let appPath: string;
/** Set by the walk: the L2 notice's "Stop this agent" link and the L1 key's id, for the page checks after it. */
let stopLink: string | undefined;
let l1KeyId: string | undefined;
/** Uncaught page errors and CSP violations: every page must run clean under its CSP. */
const problems: string[] = [];

before(async () => {
  smtp = await startSmtpListener();
  stack = await startStack({ env: { SMTP_URL: smtp.url } });
  appPath = new URL(stack.config.appUrl).pathname;
  principal = await createAccount(stack.deps.db, { name: 'Pat Principal' });
  owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
  ({ nda } = await seedSamples(stack, owner));
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  watchProblems(page, problems);
});

after(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  await stack?.close();
  await smtp?.close();
});

/** Links carry the public host (SVC_PUBLIC_URL); the test server is stack.url. */
const onServer = (link: string) => `${stack.url}${new URL(link, stack.url).pathname}`;
const app = (suffix: string) => `${stack.url}${appPath}${suffix}`;

async function notice(pattern: RegExp): Promise<string> {
  const locator = page.getByTestId('notice').filter({ hasText: pattern });
  await locator.waitFor();
  return locator.innerText();
}

async function createKey(label: string): Promise<{ key: string; id: string }> {
  await page.goto(app('/keys'));
  await page.getByTestId('key-label').fill(label);
  await page.getByTestId('create-key').click();
  await page.getByText('Copy this key now').waitFor();
  const key = (await page.getByTestId('new-key').innerText()).trim();
  await assertAccessible(page, 'the keys page showing a new key');
  assert.match(key, /^svc_[0-9A-Za-z]{32}$/);
  const me = await call(stack.url, 'GET', '/v1/me', { key });
  assert.equal(me.status, 200, me.text);
  return { key, id: me.body.key.id };
}

/** The grant form and its clickwrap, up to the page that asks for the e-mailed code; answers the mandate id. */
async function startGrant(options: {
  keyId: string;
  name: string;
  level: 'L1' | 'L2';
  mode: 'inbound' | 'outbound' | 'both';
  expiresOn?: string;
}): Promise<string> {
  await page.goto(app('/mandates'));
  await page.getByTestId('grant-mandate').click();
  await page.getByTestId('grant-key').selectOption(options.keyId);
  await page.getByTestId('grant-name').fill(options.name);
  await page.getByTestId(`level-${options.level}`).check();
  await page.getByTestId(`mode-${options.mode}`).check();
  if (options.expiresOn) await page.getByTestId('grant-expiry').fill(options.expiresOn);
  assert.equal(await page.getByTestId('consent-version').innerText(), 'mandate-consent-v2');
  await page.getByTestId('grant-consent').check();
  await assertAccessible(page, 'the mandate grant form');
  await page.getByTestId('grant-submit').click();
  await page.getByTestId('grant-code').waitFor();
  await assertAccessible(page, 'the mandate code page');
  const id = /\/mandates\/(mdt_[0-9A-Za-z]{20})\/confirm$/.exec(page.url())?.[1];
  assert.ok(id, page.url());
  return id;
}

async function enterGrantCode(code: string): Promise<void> {
  await page.getByTestId('grant-code').fill(code);
  await page.getByTestId('grant-confirm').click();
  await notice(/is active/);
}

const grantMail = () => smtp.nextMail(principal.email, { subject: /grant the mandate/ });

async function sentNda(name: string): Promise<string> {
  const created = await createDocument(stack, owner, {
    template_id: nda.id,
    name,
    send: true,
    // The principal is signer 1, the Disclosing Party: no required text field blocks an apply.
    signers: [
      { name: 'Pat Principal', email: principal.email },
      { name: 'Rey Receiver', email: `rey-${randomBase62(6).toLowerCase()}@example.test` },
    ],
  });
  assert.equal(created.status, 201, created.text);
  return created.body.document_id;
}

async function principalSignerStatus(documentId: string, wanted: string): Promise<void> {
  const mine = (document: { signers: Array<{ email: string; status: string }> }) =>
    document.signers.find((signer) => signer.email === principal.email)!.status;
  await waitForDocument(
    stack,
    owner.key,
    documentId,
    (document) => mine(document) === wanted,
    `the principal to be ${wanted} on ${documentId}`,
  );
}

it('a principal signs in, stores a signature, grants L1 and L2 mandates, confirms, declines, is notified of an L2 signature and revokes', async () => {
  // Sign in with the code e-mailed over SMTP.
  await page.goto(app('/'));
  assert.match(page.url(), /\/login\?next=/);
  await assertAccessible(page, 'the sign-in page');
  await page.getByTestId('login-email').fill(principal.email);
  await page.getByTestId('login-send').click();
  await page.getByTestId('login-code').waitFor();
  await assertAccessible(page, 'the sign-in code page');
  await page.getByTestId('login-code').fill(codeIn(await smtp.nextMail(principal.email, { subject: /sign-in code/ })));
  await page.getByTestId('login-verify').click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  assert.match(await page.getByTestId('signature-status').innerText(), /Not stored yet/);
  await assertAccessible(page, 'the overview');

  // The signature: drawn on the pad first, then replaced by an uploaded PNG.
  await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Signature' }).click();
  const pad = page.getByTestId('draw-canvas');
  await assertAccessible(page, 'the signature page');
  await page.getByTestId('signature-draw-save').click();
  assert.match(await page.getByTestId('draw-problem').innerText(), /Draw your signature/);
  const box = (await pad.boundingBox())!;
  await page.mouse.move(box.x + 20, box.y + box.height / 2);
  await page.mouse.down();
  for (let step = 1; step <= 16; step += 1)
    await page.mouse.move(box.x + 20 + (step * (box.width - 40)) / 16, box.y + box.height * (0.5 - 0.3 * Math.sin(step / 2)), { steps: 2 });
  await page.mouse.up();
  await page.getByTestId('signature-draw-save').click();
  await notice(/Your signature is stored/);
  const png = signaturePng(240, 80);
  await page.getByTestId('signature-file').setInputFiles({ name: 'signature.png', mimeType: 'image/png', buffer: png });
  await page.getByTestId('signature-upload').click();
  await notice(/Your signature is stored/);
  const image = page.getByTestId('signature-current').locator('img');
  await image.waitFor();
  // The browser decoded the served image: it is the uploaded 240-pixel-wide PNG.
  const width = () =>
    image.evaluate((img) =>
      (img as unknown as { complete: boolean }).complete ? (img as unknown as { naturalWidth: number }).naturalWidth : 0,
    );
  for (let tries = 0; (await width()) === 0 && tries < 40; tries += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await width(), 240);
  const served = await page.request.get(app('/signature/image'));
  assert.deepEqual(Buffer.from(await served.body()), png);

  // Two keys, one per mandate, each shown once.
  const l1 = await createKey('L1 agent');
  const l2 = await createKey('L2 agent');

  // The L1 mandate: documents sent to the principal.
  await startGrant({ keyId: l1.id, name: 'Inbound confirmations', level: 'L1', mode: 'inbound' });
  await enterGrantCode(codeIn(await grantMail()));
  assert.match(await page.getByTestId('notice').innerText(), /key “L1 agent” now has the scope documents:sign/);

  // The L2 mandate, with an expiry, confirmed with a second code asked for on the page.
  const expiresOn = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
  const l2MandateId = await startGrant({ keyId: l2.id, name: 'Routine NDAs', level: 'L2', mode: 'both', expiresOn });
  const firstCode = codeIn(await grantMail());
  await page.getByTestId('grant-resend').click();
  await notice(/A new code is on its way/);
  const secondCode = codeIn(await grantMail());
  if (secondCode !== firstCode) {
    await page.getByTestId('grant-code').fill(firstCode);
    await page.getByTestId('grant-confirm').click();
    await notice(/That code is not right/);
  }
  await enterGrantCode(secondCode);
  const l2Row = page.locator(`[data-mandate-id="${l2MandateId}"]`);
  assert.equal(await l2Row.getByTestId('mandate-status').innerText(), 'active');
  const me2 = await call(stack.url, 'GET', '/v1/me', { key: l2.key });
  assert.equal(me2.body.signing_mandate.confirmation_level, 'L2');
  assert.equal(me2.body.signing_mandate.expires_at, `${expiresOn}T23:59:59.999Z`);
  assert.ok(me2.body.scopes.includes('documents:sign'));

  // L1: the agent asks twice; the principal confirms one and declines the other.
  const [confirmed, declined, l2Signed, afterRevoke] = await Promise.all(
    ['NDA confirm', 'NDA decline', 'NDA by L2', 'NDA after revoke'].map(sentNda),
  );
  const requests: Record<string, { sign_request_id: string; confirm_url: string }> = {};
  for (const id of [confirmed, declined]) {
    const reply = await call(stack.url, 'POST', `/v1/documents/${id}/sign-requests`, {
      key: l1.key,
      body: { reason: `Please sign ${id}` },
    });
    assert.equal(reply.status, 201, reply.text);
    requests[id] = reply.body;
    const mail = await smtp.nextMail(principal.email, { subject: /Confirm your signature/ });
    assert.ok(mail.text.includes(new URL(reply.body.confirm_url).pathname), mail.text);
  }
  await page.goto(app('/'));
  assert.equal(await page.getByTestId('sign-request-link').count(), 2);
  await assertAccessible(page, 'the overview with two sign requests');

  await page.goto(onServer(requests[confirmed].confirm_url));
  await assertAccessible(page, 'the confirm page of a sign request');
  await page.getByTestId('confirm').click();
  // The page waits for the apply (SVC_APPLY_WAIT_MS); on a slow machine it may still say "Confirmed".
  await page
    .getByTestId('sign-request-status')
    .filter({ hasText: /^(Signed|Confirmed: your signature is being applied)/ })
    .waitFor({ timeout: 40_000 });
  await principalSignerStatus(confirmed, 'signed');

  await page.goto(onServer(requests[declined].confirm_url));
  await page.getByTestId('decline').click();
  await page
    .getByTestId('sign-request-status')
    .filter({ hasText: /^Declined/ })
    .waitFor();
  await assertAccessible(page, 'the confirm page of a declined sign request');
  const request = await call(stack.url, 'GET', `/v1/sign-requests/${requests[declined].sign_request_id}`, { key: l1.key });
  assert.equal(request.body.status, 'declined', request.text);
  await principalSignerStatus(declined, 'pending');

  // L2: the agent signs without asking; the principal is told by e-mail.
  const signed = await call(stack.url, 'POST', `/v1/documents/${l2Signed}/sign`, { key: l2.key, body: { reason: 'Routine NDA' } });
  assert.ok(signed.status === 200 || signed.status === 202, signed.text);
  const noticeMail = await smtp.nextMail(principal.email, { subject: /Your signature was applied to "NDA by L2"/, timeoutMs: 40_000 });
  assert.ok(noticeMail.text.includes(l2MandateId), noticeMail.text);
  stopLink = /Stop this agent: (\S+)/.exec(noticeMail.text)?.[1];
  l1KeyId = l1.id;
  await principalSignerStatus(l2Signed, 'signed');

  // Revoking the L2 mandate in the app takes documents:sign off its key.
  await page.goto(app('/mandates'));
  await l2Row.getByTestId('mandate-revoke').click();
  await page.getByText('Documents already completed stay signed').waitFor();
  await assertAccessible(page, 'the mandate revoke page');
  await page.getByTestId('mandate-revoke-confirm').click();
  await notice(/“Routine NDAs” is revoked/);
  assert.equal(await l2Row.getByTestId('mandate-status').innerText(), 'revoked');
  await assertAccessible(page, 'the mandates page');
  const me = await call(stack.url, 'GET', '/v1/me', { key: l2.key });
  assert.equal(me.status, 200, me.text);
  assert.equal(me.body.signing_mandate, undefined);
  assert.ok(!me.body.scopes.includes('documents:sign'), me.text);
  const refused = await call(stack.url, 'POST', `/v1/documents/${afterRevoke}/sign`, { key: l2.key, body: { reason: 'Once more' } });
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.body.error.code, 'mandate_inactive');
  // The L1 key's own mandate is untouched.
  assert.ok((await call(stack.url, 'GET', '/v1/me', { key: l1.key })).body.scopes.includes('documents:sign'));
});

it('the app’s other pages have no serious or critical accessibility violation (axe-core)', async () => {
  assert.ok(stopLink && l1KeyId, 'the walk above ran');
  for (const [what, suffix] of [
    ['the documents page', '/documents'],
    ['the templates page', '/templates'],
    ['the agent contacts page', '/agent-contacts'],
    ['the verify page', '/verify'],
    ['the key revoke page', `/keys/${l1KeyId}/revoke`],
  ]) {
    const opened = await page.goto(app(suffix));
    assert.equal(opened?.status(), 200, `${what}: ${suffix}`);
    await assertAccessible(page, what);
  }
  // The stop page of the L2 notice's link (signed out, as a phone's mail app opens it).
  const stop = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const stopPage = await stop.newPage();
    watchProblems(stopPage, problems, 'stop page');
    const opened = await stopPage.goto(onServer(stopLink!));
    assert.equal(opened?.status(), 200);
    await assertAccessible(stopPage, 'the stop page');
  } finally {
    await stop.close();
  }
});

it('no page broke its CSP or threw', () => {
  assert.deepEqual(problems, []);
});
