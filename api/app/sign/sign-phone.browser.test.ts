// The sign page on a phone (390 × 844 CSS px, 3x screen, touch) and its landing card: a signer reads
// the document at a readable zoom, is guided field by field from the bottom bar and signs, through
// the real stack. Screenshots are saved under tmp/test-output/sign-phone/ and checked pixel by pixel
// against what the DOM says should be where.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { Principal, Tenant } from '../../../db/models';
import { assertAccessible } from '../../../test/browser';
import {
  documentStatus,
  mailedCode,
  openSignPage,
  owner,
  problems,
  sendNda,
  stack,
  textOf,
  useSignPage,
  verify,
} from '../../../test/fixtures/sign-page';

useSignPage();

// What runs in the browser (page.evaluate) uses its globals; this project's types have no DOM.
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;
declare const createImageBitmap: any;
declare const OffscreenCanvas: any;
type HTMLElement = any;
type HTMLCanvasElement = any;

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const OUT = path.join(ROOT, 'tmp', 'test-output', 'sign-phone');
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const DESKTOP = { width: 1280, height: 900 };
/** The smallest tap target and the smallest readable text, in CSS px. */
const TAP = 44;
const READABLE = 12;
/** The sender as stored: markup in names must show as text. */
const SENDER = 'Ada <b>Lovelace</b>';
const TENANT = 'Acme & <i>Sons</i> Ltd';

type Box = { x: number; y: number; width: number; height: number };

async function named(): Promise<void> {
  await Principal.query(stack.deps.db).patch({ name: SENDER }).where({ id: owner.principalId });
  await Tenant.query(stack.deps.db).patch({ name: TENANT }).where({ id: owner.tenantId });
}

async function save(page: Page, name: string): Promise<Buffer> {
  const shot = await page.screenshot();
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, name), shot);
  assert.ok(shot.length > 5_000, `${name} is a picture`);
  return shot;
}

/**
 * Counts the pixels of a screenshot inside a box (CSS px) that are `kind`: the highlight of the
 * current field (#f9a825), dark (text) or white. Decoded by the browser in a blank page of its own.
 */
async function pixels(page: Page, shot: Buffer, box: Box, kind: 'highlight' | 'dark' | 'white'): Promise<{ hits: number; total: number }> {
  const blank = await page.context().newPage();
  try {
    return await blank.evaluate(
      async ({ b64, box, kind, scale }) => {
        const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext('2d')!;
        context.drawImage(bitmap, 0, 0);
        const x = Math.max(0, Math.round(box.x * scale));
        const y = Math.max(0, Math.round(box.y * scale));
        const width = Math.min(bitmap.width - x, Math.round(box.width * scale));
        const height = Math.min(bitmap.height - y, Math.round(box.height * scale));
        if (width <= 0 || height <= 0) return { hits: 0, total: 0 };
        const data = context.getImageData(x, y, width, height).data;
        let hits = 0;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
          if (kind === 'highlight' && Math.abs(r - 249) < 24 && Math.abs(g - 168) < 30 && Math.abs(b - 37) < 40) hits += 1;
          if (kind === 'dark' && r + g + b < 240) hits += 1;
          if (kind === 'white' && r > 245 && g > 245 && b > 245) hits += 1;
        }
        return { hits, total: data.length / 4 };
      },
      { b64: shot.toString('base64'), box, kind, scale: PHONE.deviceScaleFactor },
    );
  } finally {
    await blank.close();
  }
}

/** The box of an element once a smooth scroll has stopped moving it. */
async function settled(page: Page, locator: Locator): Promise<Box> {
  let last: Box | null = null;
  for (let tries = 0; tries < 50; tries += 1) {
    const box = await locator.boundingBox();
    if (box && last && JSON.stringify(box) === JSON.stringify(last)) return box;
    last = box;
    await page.waitForTimeout(80);
  }
  assert.fail(`${locator} never stopped moving`);
}

async function focusedTestid(page: Page, wanted: string): Promise<void> {
  await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.testid === id, wanted);
}

/** The card's middle is the window's middle (within a pixel and a half). */
async function assertCentred(page: Page, what: string): Promise<void> {
  const viewport = page.viewportSize()!;
  const card = (await page.getByTestId('landing').boundingBox())!;
  const scroll = await page.evaluate(() => [window.scrollX, window.scrollY]);
  assert.deepEqual(scroll, [0, 0], `${what}: nothing to scroll`);
  const dx = card.x + card.width / 2 - viewport.width / 2;
  const dy = card.y + card.height / 2 - viewport.height / 2;
  assert.ok(Math.abs(dx) <= 1.5 && Math.abs(dy) <= 1.5, `${what}: the card ${JSON.stringify(card)} is off centre by ${dx}, ${dy}`);
  assert.ok(card.width <= viewport.width && card.height < viewport.height, `${what}: the card fits the window`);
}

/**
 * The font size (PDF points) most of a page's characters are set in, read from the PDF itself with
 * pdf.js in Node: the size the page's text is drawn at, to compare with the page's CSS scale.
 */
async function bodyTextPoints(pdf: Buffer, pageNumber: number): Promise<number> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const fonts = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts/');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, standardFontDataUrl: fonts }).promise;
  try {
    const content = await (await doc.getPage(pageNumber)).getTextContent();
    const sizes = new Map<number, number>();
    for (const item of content.items) {
      if (!('str' in item) || !item.str.trim()) continue;
      const size = Math.hypot(item.transform[2], item.transform[3]);
      sizes.set(size, (sizes.get(size) ?? 0) + item.str.trim().length);
    }
    return [...sizes].sort((a, b) => b[1] - a[1])[0][0];
  } finally {
    await doc.destroy();
  }
}

/** Every visible control of the page (fields, buttons, links, the consent box) is at least 44 × 44. */
async function assertTapTargets(page: Page, what: string): Promise<void> {
  const small = await page.evaluate((min) => {
    const found: string[] = [];
    for (const el of document.querySelectorAll('main button, main a[href], main input, main select, main label.widget')) {
      if (el.closest('label.widget') && el.tagName === 'INPUT') continue; // its label is the target
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue; // hidden
      if (rect.width < min - 0.5 || rect.height < min - 0.5)
        found.push(
          `${el.tagName.toLowerCase()} "${el.dataset.testid ?? el.textContent?.trim()}" ${Math.round(rect.width)}×${Math.round(rect.height)}`,
        );
    }
    return found;
  }, TAP);
  assert.deepEqual(small, [], `${what}: tap targets under ${TAP} px`);
}

/** The focused field: inside the window, clear of the bottom bar, at least 44 px, and highlighted in the screenshot. */
async function assertGuidedTo(page: Page, testid: string, shotName: string): Promise<Box> {
  await focusedTestid(page, testid);
  const field = page.getByTestId(testid);
  const box = await settled(page, field.locator('xpath=ancestor-or-self::*[contains(@class, "widget")][1]'));
  const bar = (await page.getByTestId('guide-bar').boundingBox())!;
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844,
    `${testid} ${JSON.stringify(box)} is in the window`,
  );
  assert.ok(box.y + box.height <= bar.y, `${testid} ${JSON.stringify(box)} is not under the bar ${JSON.stringify(bar)}`);
  assert.ok(box.height >= TAP && box.width >= TAP, `${testid} is a ${TAP} px target: ${JSON.stringify(box)}`);
  const shot = await save(page, shotName);
  const ring = { x: box.x - 6, y: box.y - 6, width: box.width + 12, height: box.height + 12 };
  const highlighted = await pixels(page, shot, ring, 'highlight');
  assert.ok(highlighted.hits > 300, `${shotName}: the current field is drawn highlighted (${highlighted.hits} px)`);
  const underBar = await pixels(page, shot, bar, 'highlight');
  assert.equal(underBar.hits, 0, `${shotName}: no highlight under the bar`);
  return box;
}

it('the landing card names the sender (escaped) and sits in the middle of the window, on a desktop and on a phone', async () => {
  await named();
  const doc = await sendNda();
  const [dana, rey] = doc.signers;

  const desktop = await openSignPage(dana, DESKTOP);
  await desktop.getByTestId('send-code').waitFor();
  assert.equal(await desktop.getByTestId('sender').innerText(), `Sent by ${SENDER} (${TENANT})`);
  assert.equal(await desktop.locator('[data-testid="sender"] b, [data-testid="sender"] i').count(), 0, 'names are text, not markup');
  await assertCentred(desktop, 'desktop');
  await save(desktop, 'landing-desktop.png');
  await desktop.getByTestId('send-code').click();
  await textOf(desktop, 'status', /We sent a code to/);
  await assertCentred(desktop, 'desktop, with the code form');
  await desktop.getByTestId('code-input').fill(await mailedCode(dana.email));
  await desktop.getByTestId('verify').click();
  await desktop.locator('[data-testid="page-1"][data-rendered]').waitFor();
  // The document opened: no card around it any more, the sender still named above it.
  assert.equal(await desktop.locator('main.landing').count(), 0);
  assert.ok((await desktop.getByTestId('page-1').boundingBox())!.width > 600, 'the document has the width of the page');
  assert.match(await desktop.getByTestId('sender').innerText(), /^Sent by Ada <b>Lovelace<\/b>/);
  // A desktop keeps its layout: the panel beside the pages, no phone bar.
  assert.equal(await desktop.getByTestId('guide-bar').isVisible(), false);
  assert.equal(await desktop.getByTestId('next-field').isVisible(), true);
  await save(desktop, 'document-desktop.png');

  const phone = await openSignPage(rey, PHONE.viewport, PHONE);
  await phone.getByTestId('send-code').waitFor();
  await assertCentred(phone, 'phone');
  const shot = await save(phone, 'landing.png');
  const card = (await phone.getByTestId('landing').boundingBox())!;
  const white = await pixels(phone, shot, { x: card.x + 2, y: card.y + 2, width: card.width - 4, height: card.height - 4 }, 'white');
  assert.ok(white.hits / white.total > 0.6, 'the card is drawn in the middle of the screenshot');
  const above = await pixels(phone, shot, { x: 0, y: 0, width: 390, height: card.y - 2 }, 'white');
  assert.ok(above.hits / Math.max(1, above.total) < 0.05, 'the backdrop shows above the card');
  await assertAccessible(phone, 'the landing card on a phone');
  await assertTapTargets(phone, 'the landing card on a phone');
  await phone.getByTestId('send-code').tap();
  await textOf(phone, 'status', /We sent a code to/);
  await assertCentred(phone, 'phone, with the code form');
  await save(phone, 'landing-code.png');
});

it('on a phone the signer reads the document at a readable zoom, is guided field by field from the bottom bar, and signs', async () => {
  const doc = await sendNda();
  const rey = doc.signers[1];
  const page = await openSignPage(rey, PHONE.viewport, PHONE);
  await verify(page, rey.email);
  await save(page, 'document.png');

  // Fit to the width by default: the page takes the window less its margins, nothing scrolls sideways.
  const fit = (await page.getByTestId('page-1').boundingBox())!;
  const canvasWidth = await page
    .getByTestId('page-1')
    .locator('canvas')
    .evaluate((canvas) => canvas.getBoundingClientRect().width);
  assert.ok(fit.width >= 390 - 2 * 12 && fit.x >= 0 && fit.x + fit.width <= 390, `the page fits: ${JSON.stringify(fit)}`);
  assert.ok(Math.abs(canvasWidth - fit.width) < 1, 'the canvas fills the page');
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'no sideways scroll at fit');
  const bar = page.getByTestId('guide-bar');
  assert.equal(await bar.isVisible(), true);
  assert.equal(await page.getByTestId('bar-sign').isVisible(), false, 'Sign waits for the fields');
  await assertTapTargets(page, 'the document on a phone');

  // The zoom buttons change the scale, and the page is drawn again sharper.
  const pixelsWide = () =>
    page
      .getByTestId('page-1')
      .locator('canvas')
      .evaluate((canvas) => (canvas as HTMLCanvasElement).width);
  const before = await pixelsWide();
  await page.getByTestId('zoom-in').tap();
  assert.equal(await page.getByTestId('zoom-fit').innerText(), '125%');
  const zoomed = (await page.getByTestId('page-1').boundingBox())!;
  assert.ok(Math.abs(zoomed.width - fit.width * 1.25) < 1.5, `125%: ${zoomed.width} of ${fit.width}`);
  await page.waitForFunction((old) => {
    const canvas = document.querySelector('[data-testid="page-1"] canvas');
    return (canvas?.width ?? 0) > old * 1.2;
  }, before);
  await page.getByTestId('zoom-in').tap();
  assert.equal(await page.getByTestId('zoom-fit').innerText(), '150%');
  await page.getByTestId('zoom-out').tap();
  await page.getByTestId('zoom-out').tap();
  assert.equal(await page.getByTestId('zoom-fit').innerText(), '100%');
  assert.equal(await page.getByTestId('zoom-out').isDisabled(), true);
  assert.ok(Math.abs((await page.getByTestId('page-1').boundingBox())!.width - fit.width) < 1);

  // "Next field" zooms to where the text is readable and goes to the signature box first.
  const pdf = Buffer.from(await (await page.request.get(`${stack.url}${new URL(rey.sign_url).pathname}/document.pdf`)).body());
  const textPoints = await bodyTextPoints(pdf, 1);
  assert.ok(textPoints > 5 && textPoints < 12, `body text of ${textPoints} pt: small print for a phone`);
  await page.getByTestId('bar-next').tap();
  await assertGuidedTo(page, 'widget-receiving-signature', 'guided-signature.png');
  const pageWidth = (await page.getByTestId('page-1').boundingBox())!.width;
  const textPx = (textPoints * pageWidth) / 612;
  assert.ok(textPx >= READABLE, `text is ${textPx.toFixed(1)} CSS px at ${await page.getByTestId('zoom-fit').innerText()}`);
  assert.ok(pageWidth > 390, 'zoomed in beyond the width');
  const shot = await save(page, 'guided-text.png');
  const pageBox = (await page.getByTestId('page-1').boundingBox())!;
  const visible = { x: 0, y: Math.max(0, pageBox.y), width: 390, height: (await bar.boundingBox())!.y - Math.max(0, pageBox.y) };
  const ink = await pixels(page, shot, visible, 'dark');
  assert.ok(ink.hits > 2_000, `the zoomed page shows its text (${ink.hits} dark px)`);

  // The signature: tapping the field opens the dialog.
  await page.getByTestId('widget-receiving-signature').tap();
  await page.getByTestId('tab-type').tap();
  await page.getByTestId('signature-apply').tap();
  await page.getByTestId('signature-preview').locator('img').waitFor();

  // Then the title, typed into the focused field: 16 px text in a 44 px box.
  await page.getByTestId('bar-next').tap();
  await assertGuidedTo(page, 'widget-receiving-title', 'guided-title.png');
  const fontPx = await page.getByTestId('widget-receiving-title').evaluate((input) => Number.parseFloat(getComputedStyle(input).fontSize));
  assert.ok(fontPx >= 16, `the field's text is ${fontPx} px`);
  await page.keyboard.type('Chief Counsel');
  assert.equal(await page.getByTestId('widget-receiving-title').inputValue(), 'Chief Counsel');
  await page.getByTestId('bar-sign').waitFor();

  // The optional ones come next, in reading order.
  await page.getByTestId('bar-next').tap();
  await assertGuidedTo(page, 'widget-receiving-term', 'guided-term.png');
  await page.getByTestId('widget-receiving-term').selectOption('2 years');
  await page.getByTestId('bar-next').tap();
  await assertGuidedTo(page, 'widget-receiving-copy', 'guided-copy.png');
  await page.getByTestId('widget-receiving-copy').tap();
  assert.equal(await page.getByTestId('widget-receiving-copy').isChecked(), true);
  await assertTapTargets(page, 'the fields on a phone, zoomed in');

  // The bar stays on screen wherever the signer scrolls.
  for (const [name, to] of [
    ['top', 0],
    ['bottom', 100_000],
  ] as const) {
    await page.evaluate((y) => window.scrollTo(0, y), to);
    await page.waitForTimeout(100);
    const box = (await bar.boundingBox())!;
    assert.ok(Math.abs(box.y + box.height - 844) < 1 && box.height >= TAP, `the bar at the ${name}: ${JSON.stringify(box)}`);
    const barShot = await save(page, `bar-${name}.png`);
    const drawn = await pixels(page, barShot, box, 'white');
    assert.ok(drawn.hits / drawn.total > 0.5, `the bar is drawn at the ${name}`);
    const label = await pixels(page, barShot, (await page.getByTestId('bar-next').boundingBox())!, 'dark');
    assert.ok(label.hits > 50, `"Next field" is readable at the ${name}`);
  }
  await assertAccessible(page, 'the sign page on a phone, fields filled');

  // Sign: first the consent box (brought clear of the bar), then the signature is applied.
  await page.getByTestId('bar-sign').tap();
  await focusedTestid(page, 'consent');
  const consent = await settled(page, page.getByTestId('consent'));
  assert.ok(consent.y >= 0 && consent.y + consent.height <= (await bar.boundingBox())!.y, 'the consent box is in view');
  await page.getByTestId('consent').tap();
  await page.getByTestId('bar-sign').tap();
  await textOf(page, 'status', /^Signed\./);
  await save(page, 'signed.png');
  assert.equal(await page.getByTestId('bar-next').count(), 0, 'nothing left to guide');
  const after = await documentStatus(doc.id, 'sent');
  assert.deepEqual(
    after.signers.map((signer: { status: string }) => signer.status),
    ['pending', 'signed'],
  );
});

it('no page broke its CSP or threw', () => {
  assert.deepEqual(problems, []);
});
