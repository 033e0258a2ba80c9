import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, launchBrowser, watchProblems } from '../../test/browser';
import { type Stack, startStack } from '../../test/stack';
import { type CompletedPdf, completedPdf, tampered } from '../../test/verify';

// A visitor with no account, in a real Chromium, checks a PDF the service completed: picked with the
// file input and posted by the plain form, then a changed copy dropped on the drop zone (verify.js).

let stack: Stack;
let completed: CompletedPdf;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Uncaught page errors and CSP violations: the page must run clean under its CSP. */
const problems: string[] = [];

before(async () => {
  stack = await startStack();
  completed = await completedPdf(stack);
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
});

const verifyPage = () => `${stack.url}${new URL(stack.config.appUrl).pathname.replace(/\/$/, '')}/verify`;

it('picks a completed PDF, submits the form and reads the verdict, the document and its signers; a dropped changed copy is not valid', async () => {
  await page.goto(verifyPage());
  await page.getByTestId('verify-pdf').setInputFiles({ name: 'nda.pdf', mimeType: 'application/pdf', buffer: completed.pdf });
  await page.getByTestId('verify-submit').click();
  const verdict = page.getByTestId('verdict');
  await verdict.waitFor();
  assert.equal((await verdict.locator('h2').innerText()).trim(), 'Valid');
  assert.equal(await page.getByTestId('document-id').innerText(), completed.documentId);
  const signers = page.getByTestId('verify-signer');
  assert.equal(await signers.count(), 2);
  assert.match(await signers.nth(0).innerText(), new RegExp(`${completed.signers[0].email}[\\s\\S]*${completed.mandate.id}[\\s\\S]*L2`));
  assert.match(await signers.nth(1).innerText(), /In the browser, at their sign link/);
  assert.equal(await page.locator('[data-testid="verify-signature"][data-valid="true"]').count(), 2);
  await assertAccessible(page, 'the verify page with a valid verdict');

  // A drop on the zone puts the file in the form's input, as a person dragging it from their desktop.
  const changed = tampered(completed.pdf).toString('base64');
  // Evaluated as text in the page: the project's types have no DOM (DataTransfer, File).
  const transfer = await page.evaluateHandle(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(changed)}), (char) => char.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'changed.pdf', { type: 'application/pdf' }));
    return data;
  })()`);
  await page.locator('[data-drop-zone]').dispatchEvent('drop', { dataTransfer: transfer });
  await page.getByText('Chosen: changed.pdf').waitFor();
  await page.getByTestId('verify-submit').click();
  await page.locator('[data-testid="verdict"][data-verdict="invalid"]').filter({ hasText: 'Not valid' }).waitFor();
  assert.match(await page.getByTestId('problems').innerText(), /changed after it was signed|changed since it was timestamped/);
  assert.equal(await page.getByTestId('issued').innerText(), 'No');
  await assertAccessible(page, 'the verify page with a not-valid verdict');
  assert.deepEqual(problems, []);
});
