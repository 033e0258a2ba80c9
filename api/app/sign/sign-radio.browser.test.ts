// A radio group on the sign page (issue 40, item 1), in a real Chromium: on a desktop the signer picks
// an option by its label; on a phone the guide brings them to the group, each option is a 44 px row to
// tap, and the choice is what the signed PDF shows (every option listed, the chosen one marked).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { createTemplate } from '../../../activities/templates/templates';
import { buildSampleNda } from '../../../lib/pdf/samples';
import type { Widget } from '../../../lib/pdf/widgets';
import { assertAccessible } from '../../../test/browser';
import { createDocument, downloadPdf } from '../../../test/documents';
import {
  consentAndSign,
  drawSignature,
  openSignPage,
  owner,
  problems,
  type SentSigner,
  stack,
  textOf,
  useSignPage,
  verify,
} from '../../../test/fixtures/sign-page';
import { inkIn, pdfWords } from '../../../test/pdf-tools';

useSignPage();

const OUT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../tmp/test-output/sign-radio');
fs.mkdirSync(OUT, { recursive: true });

const PLAN: Widget = {
  id: 'plan',
  type: 'radio',
  role: 'Receiving Party',
  page: 1,
  x: 320,
  y: 470,
  width: 150,
  height: 54,
  required: true,
  label: 'Billing',
  options: ['Yearly', 'Monthly', 'Weekly'],
};

/** The sample NDA's PDF with one signature per role and the Receiving Party's billing choice, sent. */
async function sendWithChoice(): Promise<{ id: string; signers: SentSigner[] }> {
  const sample = await buildSampleNda();
  const signatures = sample.widgets.filter((widget) => widget.type === 'signature');
  const template = await createTemplate(stack.deps, {
    tenantId: owner.tenantId,
    pdf: sample.pdf,
    definition: { name: 'NDA with billing', roles: sample.roles, widgets: [...signatures, PLAN] },
    createdBy: 'test',
  });
  const tag = Math.random().toString(36).slice(2, 8);
  const created = await createDocument(stack, owner, {
    template_id: template.id,
    name: `Billing ${tag}`,
    signers: [
      { name: 'Dana Discloser', email: `dana-${tag}@example.test` },
      { name: 'Rey Receiver', email: `rey-${tag}@example.test` },
    ],
    send: true,
  });
  assert.equal(created.status, 201, created.text);
  return { id: created.body.document_id, signers: created.body.signers };
}

/** The options the PDF lists in the group's box, and which row's ring holds the most ink (the chosen one). */
async function stamped(pdf: Buffer): Promise<{ options: string[]; chosen: number }> {
  const words = (await pdfWords(pdf)).filter(
    (word) =>
      word.xMin >= PLAN.x - 1 && word.xMax <= PLAN.x + PLAN.width + 1 && word.yMin >= PLAN.y - 1 && word.yMax <= PLAN.y + PLAN.height + 1,
  );
  const row = PLAN.height / 3;
  const ink = await Promise.all([0, 1, 2].map((n) => inkIn(pdf, 1, { x: PLAN.x + 1, y: PLAN.y + n * row + 2, width: 14, height: 14 })));
  return { options: words.map((word) => word.text), chosen: ink.indexOf(Math.max(...ink)) };
}

it('on a desktop the signer picks an option by its label and the signed PDF marks it', async () => {
  const doc = await sendWithChoice();
  const rey = doc.signers[1];
  const page = await openSignPage(rey);
  await verify(page, rey.email);
  const group = page.getByRole('radiogroup', { name: 'Billing' });
  assert.deepEqual(await group.getByRole('radio').evaluateAll((inputs) => inputs.map((input) => input.getAttribute('value'))), [
    'Yearly',
    'Monthly',
    'Weekly',
  ]);
  await drawSignature(page);
  await group.getByText('Weekly').click();
  assert.equal(await page.getByTestId('widget-plan-option-2').isChecked(), true);
  await group.screenshot({ path: path.join(OUT, 'desktop-chosen.png') });
  await assertAccessible(page, 'a radio group on the sign page');
  await consentAndSign(page);
  assert.deepEqual(await stamped(await downloadPdf(stack, owner.key, doc.id)), { options: ['Yearly', 'Monthly', 'Weekly'], chosen: 2 });
});

it('on a phone the guide brings the signer to the group, each option is a 44 px row, and the tapped one is signed', async () => {
  const doc = await sendWithChoice();
  const rey = doc.signers[1];
  const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
  const page = await openSignPage(rey, phone.viewport, phone);
  await verify(page, rey.email);
  // The group comes first in reading order (above the signature box).
  await page.getByTestId('bar-next').tap();
  await page.waitForFunction(() => (globalThis as any).document.activeElement?.dataset.testid === 'widget-plan');
  const rows = page.getByTestId('widget-plan').locator('label');
  assert.equal(await rows.count(), 3);
  // Brought into view whole, clear of the bottom bar, once its smooth scroll has stopped.
  let group = await page.getByTestId('widget-plan').boundingBox();
  for (let tries = 0; tries < 50; tries += 1) {
    await page.waitForTimeout(80);
    const now = await page.getByTestId('widget-plan').boundingBox();
    if (JSON.stringify(now) === JSON.stringify(group)) break;
    group = now;
  }
  const bar = (await page.getByTestId('guide-bar').boundingBox())!;
  assert.ok(
    group && group.y >= 0 && group.y + group.height <= bar.y,
    `the group ${JSON.stringify(group)} is above the bar ${JSON.stringify(bar)}`,
  );
  for (const box of await rows.evaluateAll((labels) => labels.map((label) => label.getBoundingClientRect().toJSON())))
    assert.ok(box.height >= 43.5 && box.width >= 43.5, `an option's row is a 44 px target: ${JSON.stringify(box)}`);
  await rows.filter({ hasText: 'Monthly' }).tap();
  assert.equal(await page.getByTestId('widget-plan-option-1').isChecked(), true);
  await page.screenshot({ path: path.join(OUT, 'phone-chosen.png') });

  await page.getByTestId('bar-next').tap();
  await page.waitForFunction(() => (globalThis as any).document.activeElement?.dataset.testid === 'widget-receiving-signature');
  await page.getByTestId('widget-receiving-signature').tap();
  await page.getByTestId('tab-type').tap();
  await page.getByTestId('signature-apply').tap();
  await page.getByTestId('signature-preview').locator('img').waitFor();

  await page.getByTestId('bar-sign').tap();
  await page.getByTestId('consent').tap();
  await page.getByTestId('bar-sign').tap();
  await textOf(page, 'status', /^Signed\./);
  assert.deepEqual(await stamped(await downloadPdf(stack, owner.key, doc.id)), { options: ['Yearly', 'Monthly', 'Weekly'], chosen: 1 });
});

it('no page broke its CSP or threw', () => {
  assert.deepEqual(problems, []);
});
