import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, launchBrowser, watchProblems } from '../../test/browser';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { codeIn, type SmtpListener, startSmtpListener } from '../../test/smtp';
import { type Stack, startStack } from '../../test/stack';

// Two principals. A's agent invites B by e-mail through the API; B opens the e-mailed accept_url in
// a real Chromium, signs in with the code read from a real SMTP listener, lands back on the
// invitation, accepts it and later revokes the contact, and each step is checked from both sides
// through the API.

let smtp: SmtpListener;
let stack: Stack;
let inviter: Account;
let invitee: Account;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let appPath: string;
/** Uncaught page errors and CSP violations: every page must run clean under its CSP. */
const problems: string[] = [];

before(async () => {
  smtp = await startSmtpListener();
  stack = await startStack({ env: { SMTP_URL: smtp.url } });
  appPath = new URL(stack.config.appUrl).pathname.replace(/\/$/, '');
  inviter = await createAccount(stack.deps.db, { name: 'Ada Inviter' });
  invitee = await createAccount(stack.deps.db, { name: 'Bo Invitee' });
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

/** Links carry SVC_APP_URL's host; the test server is stack.url. The query (?accept=) is kept. */
const onServer = (link: string) => {
  const url = new URL(link);
  return `${stack.url}${url.pathname}${url.search}`;
};

async function notice(pattern: RegExp): Promise<string> {
  const locator = page.getByTestId('notice').filter({ hasText: pattern });
  await locator.waitFor();
  return locator.innerText();
}

async function contact(account: Account, id: string): Promise<{ status: string; revoked_by: string | null }> {
  const reply = await call(stack.url, 'GET', `/v1/contacts/${id}`, { key: account.key });
  assert.equal(reply.status, 200, reply.text);
  return reply.body;
}

it('B opens the accept_url, signs in with the e-mailed code, accepts the invitation of A’s agent, then revokes the contact', async () => {
  // A's agent invites B's e-mail; B is e-mailed the accept_url.
  const invited = await call(stack.url, 'POST', '/v1/contacts', { key: inviter.key, body: { email: invitee.email, name: 'Bo' } });
  assert.equal(invited.status, 201, invited.text);
  const acceptUrl: string = invited.body.accept_url;
  assert.equal(new URL(acceptUrl).pathname, `${appPath}/agent-contacts`);
  const mail = await smtp.nextMail(invitee.email, { subject: /Ada Inviter invites you to connect your agents/ });
  assert.ok(mail.text.includes(acceptUrl), mail.text);

  // Signed out, the link asks B to sign in, then brings B back to it.
  const target = onServer(acceptUrl);
  await page.goto(target);
  assert.match(page.url(), /\/login\?next=/);
  await page.getByTestId('login-email').fill(invitee.email);
  await page.getByTestId('login-send').click();
  await page.getByTestId('login-code').waitFor();
  await page.getByTestId('login-code').fill(codeIn(await smtp.nextMail(invitee.email, { subject: /sign-in code/ })));
  await page.getByTestId('login-verify').click();
  await page.getByTestId('invitation').waitFor();
  assert.equal(page.url(), target, 'back on the accept_url, token and all');
  assert.equal(await page.getByTestId('invitation-from').innerText(), 'Ada Inviter');
  assert.equal(await page.getByTestId('invitation-email').innerText(), inviter.email);
  assert.match(await page.getByTestId('invitation').innerText(), /It signs nothing/);
  await assertAccessible(page, 'the invitation page');

  // Accept: the contact is active on the page and on both sides through the API.
  await page.getByTestId('invitation-accept').click();
  await notice(/You are now agent contacts/);
  const active = page.getByTestId('contacts-active').getByTestId('contact-row').filter({ hasText: 'Ada Inviter' });
  await active.waitFor();
  assert.match(await active.innerText(), new RegExp(inviter.email.replace(/\./g, '\\.')));
  const mine = await active.getAttribute('data-contact-id');
  assert.ok(mine);
  assert.equal((await contact(invitee, mine)).status, 'active');
  assert.equal((await contact(inviter, invited.body.contact_id)).status, 'active');
  await assertAccessible(page, 'the agent contacts page with an active contact');

  // Later, from the navigation: B revokes, and A's side is revoked too.
  await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Agent contacts' }).click();
  await page.getByTestId('contacts-active').waitFor();
  await page.locator(`[data-testid="contacts-active"] [data-contact-id="${mine}"]`).getByTestId('contact-revoke').click();
  await notice(/Ended on both sides/);
  const revoked = page.locator(`[data-testid="contacts-revoked"] [data-contact-id="${mine}"]`);
  assert.equal(await revoked.getByTestId('revoked-by').innerText(), 'You revoked it');
  assert.equal(await page.getByTestId('contacts-active').count(), 0);
  assert.deepEqual(await contact(invitee, mine).then(({ status, revoked_by }) => ({ status, revoked_by })), {
    status: 'revoked',
    revoked_by: 'self',
  });
  assert.deepEqual(await contact(inviter, invited.body.contact_id).then(({ status, revoked_by }) => ({ status, revoked_by })), {
    status: 'revoked',
    revoked_by: 'counterparty',
  });
});

it('no page broke its CSP or threw', () => {
  assert.deepEqual(problems, []);
});
