import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildSampleNda } from '../../lib/pdf/samples';
import { assertAccessible, launchBrowser, watchProblems } from '../../test/browser';
import { createDocument, downloadPdf, SignerSession, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { inkIn, pdfText } from '../../test/pdf-tools';
import { AppClient } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

// The visual template editor in a real Chromium: a principal places two fields for two roles by
// dragging them from the palette onto the PDF's page, resizes one and moves the other, saves, reopens
// the template and sees them; an agent then sends a document from it and both signers sign into them.

let stack: Stack;
let owner: Account;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let appPath: string;
const problems: string[] = [];

interface PlacedWidget {
  id: string;
  type: string;
  role: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

before(async () => {
  stack = await startStack();
  owner = await createAccount(stack.deps.db, { name: 'Edna Editor' });
  const session = await new AppClient(stack, owner.email).login();
  appPath = session.appPath;
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const [name, ...value] = session.cookie.split('=');
  await context.addCookies([{ name, value: value.join('='), url: stack.url }]);
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

async function box(testid: string, nth = 0) {
  const found = await page.getByTestId(testid).nth(nth).boundingBox();
  assert.ok(found, `${testid} is not on screen`);
  return found;
}

/** A pointer drag as a person makes it: press, travel in steps, release. */
async function drag(from: { x: number; y: number }, to: { x: number; y: number }) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 12 });
  await page.mouse.up();
}

async function placed(): Promise<PlacedWidget[]> {
  return JSON.parse(await page.getByTestId('editor-widgets').inputValue());
}

/** Drags a new field of this role and kind from the palette to a point of page 1 (fractions of its size). */
async function place(role: string, kind: string, at: { fx: number; fy: number }) {
  await page.getByTestId('editor-role').selectOption(role);
  await page.getByTestId('editor-kind').selectOption(kind);
  await page.getByTestId('palette-field').scrollIntoViewIfNeeded();
  const target = await page.getByTestId('editor-page-1').boundingBox();
  assert.ok(target);
  const source = await box('palette-field');
  await drag(
    { x: source.x + source.width / 2, y: source.y + source.height / 2 },
    { x: target.x + target.width * at.fx, y: target.y + target.height * at.fy },
  );
}

/** Scrolls the window so that the point at this fraction of page 1's height is in the window's middle. */
async function scrollTo(fy: number) {
  const target = await box('editor-page-1');
  await page.mouse.wheel(0, target.y + target.height * fy - 450);
  await page.waitForTimeout(200);
}

it('places, resizes and moves fields by mouse, saves them as widgets, reopens them, and a document sent from the template is signed in them', async () => {
  await page.goto(app('/templates'));
  await page.getByTestId('template-new').click();
  await page.getByTestId('editor-name').fill('Boat sale');
  await page.getByTestId('editor-roles').fill('Seller, Buyer');
  const pdf = (await buildSampleNda()).pdf;
  await page.getByTestId('editor-pdf').setInputFiles({ name: 'boat.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) });
  await page.locator('[data-testid="editor-page-1"][data-rendered]').waitFor();
  assert.deepEqual(await page.getByTestId('editor-role').locator('option').allInnerTexts(), ['Seller', 'Buyer']);

  await page.mouse.wheel(0, 300);
  await place('Seller', 'signature', { fx: 0.12, fy: 0.55 });
  await place('Buyer', 'signature', { fx: 0.55, fy: 0.55 });
  let widgets = await placed();
  assert.equal(widgets.length, 2, JSON.stringify(widgets));
  assert.deepEqual(
    widgets.map((widget) => [widget.role, widget.type, widget.page]),
    [
      ['Seller', 'signature', 1],
      ['Buyer', 'signature', 1],
    ],
  );
  const pageBox = await box('editor-page-1');
  const pageWidth = (await PDFDocument.load(pdf)).getPage(0).getWidth();
  const scale = pageBox.width / pageWidth;
  // Dropped where the pointer let go: within a point or two of the target.
  assert.ok(Math.abs(widgets[0].x - 0.12 * pageWidth) < 2, `x ${widgets[0].x}`);
  assert.equal(widgets[0].width, 160);

  // Resize the seller's field by its corner: 60 by 20 points larger.
  await page.getByTestId('field').nth(0).scrollIntoViewIfNeeded();
  const handle = await box('field-resize', 0);
  await drag(
    { x: handle.x + handle.width / 2, y: handle.y + handle.height / 2 },
    { x: handle.x + handle.width / 2 + 60 * scale, y: handle.y + handle.height / 2 + 20 * scale },
  );
  // Move the buyer's field by its body: 30 points left, 40 points up.
  const buyer = await box('field', 1);
  await drag(
    { x: buyer.x + 20, y: buyer.y + buyer.height / 2 },
    { x: buyer.x + 20 - 30 * scale, y: buyer.y + buyer.height / 2 - 40 * scale },
  );
  const before = widgets;
  widgets = await placed();
  assert.ok(Math.abs(widgets[0].width - 220) < 1.5, `resized width ${widgets[0].width}`);
  assert.ok(Math.abs(widgets[0].height - 60) < 1.5, `resized height ${widgets[0].height}`);
  assert.equal(widgets[0].x, before[0].x, 'resizing keeps the corner');
  assert.ok(Math.abs(widgets[1].x - (before[1].x - 30)) < 1.5, `moved x ${widgets[1].x}`);
  assert.ok(Math.abs(widgets[1].y - (before[1].y - 40)) < 1.5, `moved y ${widgets[1].y}`);
  // The keyboard moves and resizes as well: Shift+Right moves 10 points, Alt+Down grows 1 point, and back.
  await page.getByTestId('field').nth(1).focus();
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Alt+ArrowDown');
  const keyed = (await placed())[1];
  assert.deepEqual([keyed.x, keyed.height], [widgets[1].x + 10, widgets[1].height + 1]);
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Alt+ArrowUp');
  assert.deepEqual(await placed(), widgets);
  await assertAccessible(page, 'the template editor with two fields');

  await page.getByTestId('editor-save').click();
  await page.getByTestId('notice').filter({ hasText: 'The template is added' }).waitFor();
  const id = /\/templates\/(tpl_[A-Za-z0-9]+)\/edit/.exec(page.url())?.[1];
  assert.ok(id, page.url());

  // Reopened: the same two fields, where they were left.
  await page.goto(app(`/templates/${id}/edit`));
  await page.locator('[data-testid="editor-page-1"][data-rendered]').waitFor();
  assert.equal(await page.getByTestId('field').count(), 2);
  assert.deepEqual(await page.getByTestId('field').evaluateAll((els) => els.map((el) => el.getAttribute('data-role'))), [
    'Seller',
    'Buyer',
  ]);
  assert.deepEqual(
    await placed(),
    widgets.map((widget) => ({ ...widget, required: true })),
  );
  const reopened = await page.getByTestId('field').nth(0).boundingBox();
  assert.ok(reopened && Math.abs(reopened.width - 220 * scale) < 3, `drawn width ${reopened?.width}`);

  const template = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
  assert.deepEqual(template.body.roles, ['Seller', 'Buyer']);
  assert.deepEqual(
    template.body.widgets.map((widget: PlacedWidget) => [widget.role, widget.x, widget.y, widget.width, widget.height]),
    widgets.map((widget) => [widget.role, widget.x, widget.y, widget.width, widget.height]),
  );

  // Sent through the API, both signers sign into the fields placed by mouse.
  const sent = await createDocument(stack, owner, {
    template_id: id,
    name: 'Boat sale to Bob',
    signers: [
      { name: 'Sally Seller', email: 'sally@example.test' },
      { name: 'Bob Buyer', email: 'bob@example.test' },
    ],
    send: true,
  });
  assert.equal(sent.status, 201, sent.text);
  for (const signer of sent.body.signers) {
    const session = await new SignerSession(stack, signer.sign_url, signer.email).verify();
    const state = await session.request('GET', '/state');
    assert.deepEqual(
      state.body.widgets.filter((widget: { mine: boolean }) => widget.mine).map((widget: { id: string }) => widget.id),
      widgets.filter((widget) => widget.role === signer.role).map((widget) => widget.id),
    );
    const signed = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: {},
    });
    assert.ok([200, 202].includes(signed.status), signed.text);
    await waitForDocument(
      stack,
      owner.key,
      sent.body.document_id,
      (doc) => doc.signers.find((s: { signer_id: string }) => s.signer_id === signer.signer_id).status === 'signed',
      `${signer.name} signed`,
    );
  }
  await waitForDocument(stack, owner.key, sent.body.document_id, (doc) => doc.status === 'completed', 'completed');
  const signedPdf = await downloadPdf(stack, owner.key, sent.body.document_id);
  for (const widget of widgets) assert.ok((await inkIn(signedPdf, 1, widget)) > 0.005, `ink in ${widget.id}`);
  assert.deepEqual(problems, []);
});

it('names fields and lists a radio group’s options in the panel; agents fill the named field and signers choose in the group', async () => {
  await page.goto(app('/templates/new'));
  await page.getByTestId('editor-name').fill('Boat sale, named');
  await page.getByTestId('editor-roles').fill('Seller, Buyer');
  const pdf = (await buildSampleNda()).pdf;
  await page.getByTestId('editor-pdf').setInputFiles({ name: 'boat.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) });
  await page.locator('[data-testid="editor-page-1"][data-rendered]').waitFor();
  assert.equal(await page.getByTestId('field-name').isDisabled(), true, 'nothing selected yet');

  // A radio group, selected as it is dropped: two options to start with, renamed and listed anew.
  // (Both fields go where the sample has no text of its own, so the PDF's text reads them apart.)
  await scrollTo(0.93);
  await place('Buyer', 'radio', { fx: 0.12, fy: 0.915 });
  assert.equal(await page.getByTestId('field-name').isDisabled(), false);
  assert.equal(await page.getByTestId('field-options').inputValue(), 'Option 1\nOption 2');
  await page.getByTestId('field-name').fill('payment');
  await page.getByTestId('field-label').fill('Payment');
  await page.getByTestId('field-options').fill('Cash\nTransfer\nCheque');
  // A text field for the seller: the taken name is refused in place, another is taken.
  await scrollTo(0.03);
  await place('Seller', 'text', { fx: 0.12, fy: 0.02 });
  assert.equal(await page.getByTestId('field-options').isVisible(), false, 'a text field has no options');
  await page.getByTestId('field-name').fill('payment');
  await page.getByTestId('field-props-error').filter({ hasText: 'Another field is named “payment”' }).waitFor();
  await page.getByTestId('field-name').fill('boat-name');
  assert.equal(await page.getByTestId('field-props-error').isVisible(), false);
  await scrollTo(0.6);
  await place('Seller', 'signature', { fx: 0.12, fy: 0.6 });
  await place('Buyer', 'signature', { fx: 0.55, fy: 0.6 });
  await assertAccessible(page, 'the template editor with its field panel');
  await page.getByTestId('editor-save').click();
  await page.getByTestId('notice').filter({ hasText: 'The template is added' }).waitFor();
  const id = /\/templates\/(tpl_[A-Za-z0-9]+)\/edit/.exec(page.url())?.[1];
  assert.ok(id, page.url());

  // The API lists what an agent needs to fill them.
  const template = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
  const byId = Object.fromEntries(template.body.widgets.map((widget: PlacedWidget) => [widget.id, widget]));
  assert.deepEqual(
    [byId.payment?.type, byId.payment?.role, byId.payment?.label, byId.payment?.options, byId.payment?.required],
    ['radio', 'Buyer', 'Payment', ['Cash', 'Transfer', 'Cheque'], true],
  );
  assert.deepEqual([byId['boat-name']?.type, byId['boat-name']?.role], ['text', 'Seller']);

  // An agent fills the seller's named field; the buyer chooses in the group; both sign.
  const sent = await createDocument(stack, owner, {
    template_id: id,
    name: 'Named boat sale',
    values: { 'boat-name': 'Sea Breeze' },
    signers: [
      { name: 'Sally Seller', email: 'sally-named@example.test' },
      { name: 'Bob Buyer', email: 'bob-named@example.test' },
    ],
    send: true,
  });
  assert.equal(sent.status, 201, sent.text);
  const [sally, bob] = sent.body.signers;
  const buyer = await new SignerSession(stack, bob.sign_url, bob.email).verify();
  assert.equal((await buyer.sign({ payment: 'Transfer' })).status, 200);
  const seller = await new SignerSession(stack, sally.sign_url, sally.email).verify();
  assert.equal((await seller.sign()).status, 200);
  await waitForDocument(stack, owner.key, sent.body.document_id, (doc) => doc.status === 'completed', 'completed');
  const text = await pdfText(await downloadPdf(stack, owner.key, sent.body.document_id));
  for (const line of ['Sea Breeze', 'Cash', 'Transfer', 'Cheque'])
    assert.match(text, new RegExp(`^${line}$`, 'm'), `${line} in the signed PDF`);
  assert.deepEqual(problems, []);
});

it('hides the editor and its links, and answers 403 on its pages, with agent_editor off', async () => {
  const off = await stack.withEnv({ SVC_FF_AGENT_EDITOR: 'off' });
  try {
    const offApp = (suffix: string) => `${off.url}${appPath}${suffix}`;
    await context.addCookies(
      (await context.cookies(stack.url)).map((cookie) => ({ ...cookie, domain: undefined, path: undefined, url: off.url })),
    );
    await page.goto(offApp('/templates'));
    await page.getByTestId('template-row').first().waitFor();
    assert.equal(await page.getByTestId('template-new').count(), 0);
    assert.equal(await page.getByTestId('template-edit').count(), 0);
    assert.equal(await page.getByTestId('template-form').count(), 0);
    const id = (await call(stack.url, 'GET', '/v1/templates', { key: owner.key })).body.data[0].template_id;
    for (const path of ['/templates/new', `/templates/${id}/edit`, `/templates/${id}/template.pdf`]) {
      const response = await page.goto(offApp(path));
      assert.equal(response?.status(), 403, path);
      assert.match(await page.getByTestId('notice').innerText(), /agent_editor is disabled/);
    }
    for (const path of ['/templates', '/templates/new', `/templates/${id}/edit`, `/templates/${id}/delete`]) {
      const response = await page.request.post(offApp(path), { form: { name: 'Off' }, maxRedirects: 0 });
      assert.equal(response.status(), 403, `POST ${path}`);
    }
    const still = await call(stack.url, 'GET', `/v1/templates/${id}`, { key: owner.key });
    assert.equal(still.body.deleted_at, null);
  } finally {
    await off.close();
  }
});
