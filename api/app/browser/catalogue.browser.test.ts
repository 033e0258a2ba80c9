// The sign page's scripts show only catalogue strings (issue 38, item 2): the page opened in the
// pseudo-locale (en-XA: every catalogue message wrapped in ⟦ ⟧) through the real stack and walked
// through what the scripts render (the code step and its errors, the document with the signer's
// fields, the signature dialog's tabs and refusals, the decline dialog, the signed panel); at each
// step every text node and every attribute a person reads must be a catalogue message or data.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import type { SignState } from '../../../activities/signers/wire';
import { outsideCatalogue } from '../../../test/catalogue';
import { mailedCode, openSignPage, problems, sendNda, textOf, useSignPage } from '../../../test/fixtures/sign-page';

useSignPage();

// What runs in the browser (page.evaluate) uses its globals; this project's types have no DOM.
declare const document: any;
declare const NodeFilter: any;

/** Every text a person reads on the page now: text nodes (hidden ones too: a dialog's other tabs, the phone's bar) and attributes. */
const READ_PAGE = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (/^(SCRIPT|STYLE|NOSCRIPT)$/.test(node.parentElement?.tagName ?? '')) continue;
    out.push(node.textContent);
  }
  for (const el of document.body.querySelectorAll('*'))
    for (const name of ['aria-label', 'title', 'placeholder', 'alt']) if (el.getAttribute(name)) out.push(el.getAttribute(name));
  return out.join('\\n');
})()`;

/** The data the page shows as values (names, roles, the document's name, the template's field labels and options, stamped texts). */
async function dataOf(page: Page, extra: string[]): Promise<string[]> {
  const state = await page.evaluate(async () => {
    const base = document.getElementById('sign').dataset.base;
    return (await fetch(`${base}/state`, { credentials: 'same-origin' })).json() as Promise<SignState>;
  });
  return [
    ...extra,
    state.document.name,
    state.signer.name,
    state.signer.email,
    state.signer.initials,
    // The consent is the server's sentence (recorded with the signature as what was agreed to): the sign area's.
    state.consent_text,
    ...state.signers.flatMap((signer) => [signer.name, signer.role]),
    ...state.widgets.flatMap((widget) => [widget.label ?? '', ...(widget.options ?? []), widget.text ?? '', widget.role]),
  ].filter(Boolean);
}

async function assertCatalogued(page: Page, step: string, data: readonly string[]): Promise<void> {
  const text = String(await page.evaluate(READ_PAGE));
  assert.deepEqual(outsideCatalogue(text, data), [], `${step}: strings outside the catalogue`);
}

it('the sign page scripts render only catalogue strings, from the code step to the signed panel', async () => {
  const sent = await sendNda();
  const signer = sent.signers[1];
  const page = await openSignPage(signer, undefined, { locale: 'en-XA' });
  const masked = await page.locator('#sign').getAttribute('data-email');
  const before = [signer.name, signer.email, masked ?? '', await page.locator('h1').innerText()];

  // The code step, a malformed code, the code sent.
  await page.getByTestId('send-code').waitFor();
  await assertCatalogued(page, 'the code step', before);
  await page.getByTestId('send-code').click();
  await page.getByTestId('code-input').waitFor({ state: 'visible' });
  await textOf(page, 'status', /\S/);
  await page.getByTestId('code-input').fill('12');
  await page.getByTestId('verify').click();
  await textOf(page, 'alert', /\S/);
  await assertCatalogued(page, 'the code sent, a malformed code', before);

  // The document with the signer's fields and the panel.
  await page.getByTestId('code-input').fill(await mailedCode(signer.email));
  await page.getByTestId('verify').click();
  await page.locator('[data-testid="page-1"][data-rendered]').waitFor();
  const data = await dataOf(page, before);
  await assertCatalogued(page, 'the document', data);

  // The signature dialog: its tabs, an empty drawing, a file that is no image.
  await page.getByTestId('signature-open').click();
  await page.getByTestId('signature-apply').waitFor();
  await page.getByTestId('signature-apply').click();
  await page.getByTestId('dialog-alert').filter({ hasText: /\S/ }).waitFor();
  await assertCatalogued(page, 'the signature dialog, nothing drawn', data);
  await page.getByTestId('tab-upload').click();
  await page.getByTestId('upload-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('no image') });
  await page.getByTestId('dialog-alert').filter({ hasText: /\S/ }).waitFor();
  await assertCatalogued(page, 'the signature dialog, a file that is no image', [...data, 'notes.txt']);
  await page.getByTestId('tab-type').click();
  await page.getByTestId('signature-apply').click();
  await page.getByTestId('signature-preview').locator('img').waitFor();
  await assertCatalogued(page, 'the signature added', data);

  // The decline dialog, left with Cancel.
  await page.getByTestId('decline-open').click();
  await page.getByTestId('decline-dialog').waitFor();
  await assertCatalogued(page, 'the decline dialog', data);
  await page.getByTestId('decline-dialog').getByRole('button').first().click();
  await page.getByTestId('decline-dialog').waitFor({ state: 'detached' });

  // The fields filled, signed: the signed panel.
  await page.getByTestId('widget-receiving-title').fill('Chief Counsel');
  await page.getByTestId('widget-receiving-term').selectOption({ index: 1 });
  await page.getByTestId('consent').check();
  await assertCatalogued(page, 'all set', [...data, 'Chief Counsel']);
  await page.getByTestId('sign-submit').click();
  await page.getByTestId('closed-reason').waitFor({ timeout: 60_000 });
  await assertCatalogued(page, 'signed', [...data, 'Chief Counsel']);
  assert.deepEqual(problems, []);
});
