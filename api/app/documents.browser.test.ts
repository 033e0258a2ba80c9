import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Template } from '../../db/models';
import { assertAccessible, launchBrowser, watchProblems } from '../../test/browser';
import { seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { AppClient, grantMandate, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

// A principal in a real Chromium: finds the NDA waiting for their signature in the app's inbox,
// opens its page, downloads its PDF and reads its audit trail; then, asked by their L1 agent to
// confirm a 50-page agreement, sees on the confirm page the page where their signature lands.

let stack: Stack;
let principal: Account;
let owner: Account;
let nda: Template;
let services: Template;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let appPath: string;
const problems: string[] = [];

before(async () => {
  stack = await startStack();
  appPath = new URL(stack.config.appUrl).pathname.replace(/\/$/, '');
  principal = await createAccount(stack.deps.db, { name: 'Pat Principal' });
  owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
  ({ nda, services } = await seedSamples(stack, owner));
  const session = await new AppClient(stack, principal.email).login();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  const [name, value] = session.cookie.split('=');
  await context.addCookies([{ name, value, url: stack.url }]);
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  watchProblems(page, problems);
});

after(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  await stack?.close();
});

const app = (suffix: string) => `${stack.url}${appPath}${suffix}`;

it('a principal finds the NDA waiting for them in the inbox, opens it, downloads its PDF and reads its audit trail', async () => {
  const pat = await principalOf(stack, principal);
  const sent = await sentNda(stack, owner, nda, { name: pat.name, email: pat.email }, { name: 'Browser inbox NDA' });

  await page.goto(app('/'));
  await page.getByTestId('waiting-document-link').filter({ hasText: 'Browser inbox NDA' }).waitFor();
  await page.getByRole('link', { name: 'Documents', exact: true }).click();
  await page.getByTestId('inbox-section').filter({ hasText: 'Waiting for you' }).waitFor();
  await assertAccessible(page, 'the documents inbox');
  await page.getByLabel('Search by document name or counterparty (name or e-mail)').fill('Carl Counterparty');
  await page.getByRole('button', { name: 'Search' }).click();
  const row = page.locator(`tr[data-document="${sent.document_id}"]`);
  await row.waitFor();
  await row.getByTestId('your-signature').waitFor();
  await row.getByTestId('document-link').click();

  await page.getByRole('heading', { name: 'Browser inbox NDA', level: 1 }).waitFor();
  assert.equal(await page.getByTestId('document-status').innerText(), 'sent');
  assert.match(await page.getByTestId('sign-now').innerText(), /sign now/);
  const trail = page.getByTestId('audit-trail');
  await trail.locator('tr[data-action="document.created"]').waitFor();
  assert.match(await trail.locator('tr[data-action="document.created"]').innerText(), /test agent/);
  await trail.locator('tr[data-action="document.sent"]').waitFor();
  await assertAccessible(page, 'a document’s page');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  assert.equal(download.suggestedFilename(), 'Browser inbox NDA.pdf');
  const bytes = await fs.readFile((await download.path())!);
  assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');

  // Sign now opens the principal's own sign page.
  await page.getByTestId('sign-now').click();
  await page.waitForURL(/\/sign\//);
  assert.deepEqual(problems, []);
});

it('the L1 confirm page previews the page where the signature lands, its fields marked', async () => {
  await grantMandate(stack, principal, { level: 'L1', mode: 'inbound', name: 'Inbound agreements' });
  const pat = await principalOf(stack, principal);
  const sent = await sentNda(stack, owner, services, { name: pat.name, email: pat.email }, { name: 'Fifty-page agreement' });
  const request = await call(stack.url, 'POST', `/v1/documents/${sent.document_id}/sign-requests`, {
    key: principal.key,
    body: { reason: 'The agreed services contract' },
  });
  assert.equal(request.status, 201, request.text);

  await page.goto(`${stack.url}${new URL(request.body.confirm_url).pathname}`);
  assert.match(await page.getByTestId('preview-pages').innerText(), /page 50 of the document/);
  const preview = page.locator('[data-testid="l1-preview"][data-rendered="true"]');
  await preview.waitFor();
  // Only the signature's page is drawn, not the 49 pages of initials before it.
  assert.equal(await preview.locator('figure').count(), 1);
  const sheet = page.getByTestId('preview-page-50');
  assert.match(await sheet.locator('figcaption').innerText(), /Page 50 of 50/);
  const marks = sheet.getByTestId('preview-mark');
  const types = await marks.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-type')));
  const mine = services.widgets.filter((widget) => widget.role === 'Client' && widget.page === 50).map((widget) => widget.type);
  assert.deepEqual(types.sort(), [...mine].sort());
  // The signature's mark sits inside the drawn page, where the widget is.
  const box = (await sheet.locator('canvas').boundingBox())!;
  const mark = (await sheet.locator('[data-type="signature"]').boundingBox())!;
  const widget = services.widgets.find((w) => w.role === 'Client' && w.type === 'signature')!;
  assert.ok(
    mark.x >= box.x && mark.y >= box.y && mark.x + mark.width <= box.x + box.width + 1 && mark.y + mark.height <= box.y + box.height + 1,
  );
  const scale = box.width / 595.28; // the services agreement is A4
  assert.ok(Math.abs(mark.x - box.x - widget.x * scale) < 3, `mark at ${mark.x - box.x}, widget at ${widget.x * scale}`);
  // The page is really drawn: the canvas has ink, not only white.
  const inked = await sheet.locator('canvas').evaluate((element) => {
    const canvas = element as unknown as {
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
    };
    const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let dark = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 128) dark += 1;
    return dark;
  });
  assert.ok(inked > 100, `dark pixels: ${inked}`);
  await assertAccessible(page, 'the L1 confirm page with its preview');
  assert.deepEqual(problems, []);
});
