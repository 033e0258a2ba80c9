import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Template } from '../../db/models';
import { randomBase62 } from '../../lib/ids';
import { assertAccessible, launchBrowser, watchProblems } from '../../test/browser';
import { createDocument, latestMail, seedSamples, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { call } from '../../test/http';
import { freePort } from '../../test/ports';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

// A recipient with no account and no API key, in a real Chromium: the claim link read from the
// offer e-mail the stack's SMTP listener received, a sign-to-unlock package waiting while its NDA is
// signed by two signers at their sign links (also in the browser), then released and downloaded;
// and an accept-to-unlock package accepted from the page by each of its recipients.

let stack: Stack;
let sender: Account;
let nda: Template;
let samples: Awaited<ReturnType<typeof driveSamples>>;
let browser: Browser;
const contexts: BrowserContext[] = [];
/** Uncaught page errors and CSP violations: every page must run clean under its CSP. */
const problems: string[] = [];

before(async () => {
  // On a port of its own, the stack's links (claim, sign and download URLs) lead to it as they are
  // sent: the browser opens them unchanged and follows the Download's redirect on the same origin.
  stack = await startStack({ port: await freePort() });
  sender = await createAccount(stack.deps.db, { name: 'Sam Sender' });
  ({ nda } = await seedSamples(stack, sender));
  samples = await driveSamples();
  browser = await launchBrowser();
});

after(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await stack?.close();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const tag = () => randomBase62(6).toLowerCase();
/** A fresh browser context, whose pages' errors and CSP violations are collected. */
async function newPage(who: string, viewport = { width: 1100, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  watchProblems(page, problems, who);
  return page;
}

async function upload(index: number): Promise<string> {
  const sample = samples[index];
  const reply = await call(stack.url, 'POST', `/v1/assets?filename=${sample.name}`, {
    key: sender.key,
    raw: sample.bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.drive_file_id;
}

/** The sender's agent creates and offers a package; answers its id. */
async function offer(body: Record<string, unknown>): Promise<string> {
  const created = await call(stack.url, 'POST', '/v1/transfers', { key: sender.key, body });
  assert.equal(created.status, 201, created.text);
  const offered = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
    key: sender.key,
    body: { confirm: true },
  });
  assert.equal(offered.status, 200, offered.text);
  return created.body.transfer_id;
}

/** The claim link in the offer e-mail the recipient received. */
async function claimLinkMailed(email: string, packageName: string): Promise<string> {
  const mail = await stack.smtp!.nextMail(email, { subject: new RegExp(`Sam Sender sent you files: ${packageName}`) });
  const link = /(https?:\/\/\S+\/claim\/svcxfer_[0-9A-Za-z]{32})/.exec(mail.text)?.[1];
  assert.ok(link, mail.text);
  assert.equal(new URL(link).pathname, `${new URL(stack.config.appUrl).pathname}/claim/${link.split('/').pop()}`);
  return link;
}

async function stateOf(page: Page, pattern: RegExp): Promise<string> {
  const locator = page.getByTestId('claim-state').filter({ hasText: pattern });
  await locator.waitFor();
  return locator.innerText();
}

/** A signer at their sign link: the e-mailed code, then the document loads in place. */
async function openSignPage(signer: { name: string; email: string; sign_url: string }): Promise<Page> {
  const page = await newPage(signer.email);
  await page.goto(signer.sign_url);
  await page.getByTestId('send-code').click();
  await page
    .getByTestId('status')
    .filter({ hasText: /We sent a code to/ })
    .waitFor();
  const code = /\b(\d{6})\b/.exec((await latestMail(stack, signer.email, 'sign-code'))?.text ?? '')?.[1];
  assert.ok(code, `no code mailed to ${signer.email}`);
  await page.getByTestId('code-input').fill(code);
  await page.getByTestId('verify').click();
  await page.locator('[data-testid="page-1"][data-rendered]').waitFor();
  return page;
}

async function consentAndSign(page: Page): Promise<void> {
  await page.getByTestId('consent').check();
  await page.getByTestId('sign-submit').click();
  await page
    .getByTestId('status')
    .filter({ hasText: /^Signed\./ })
    .waitFor();
}

it('sign-to-unlock: the recipient sees the package wait while the NDA is signed in the browser, then downloads the file', async () => {
  // The sender's agent sends an NDA to two signers who are not principals, and links a package to it.
  const id = tag();
  const created = await createDocument(stack, sender, {
    template_id: nda.id,
    name: `NDA ${id}`,
    send: true,
    signers: [
      { name: 'Dana Discloser', email: `dana-${id}@example.test` },
      { name: 'Rey Receiver', email: `rey-${id}@example.test` },
    ],
  });
  assert.equal(created.status, 201, created.text);
  const [dana, rey] = created.body.signers;
  const file = samples[4];
  const rita = { name: 'Rita Recipient', email: `rita-${id}@example.test` };
  const transferId = await offer({
    name: 'Signed pack',
    drive_file_ids: [await upload(4)],
    recipients: [rita],
    document_id: created.body.document_id,
  });

  // The recipient opens the e-mailed claim link: the package waits, nothing can be downloaded.
  const claim = await newPage(rita.email);
  const opened = await claim.goto(await claimLinkMailed(rita.email, 'Signed pack'));
  assert.equal(opened?.status(), 200);
  assert.equal(await opened?.headerValue('referrer-policy'), 'no-referrer');
  assert.equal(await claim.getByRole('heading', { level: 1 }).innerText(), 'Signed pack');
  assert.equal(await claim.getByTestId('claim-from').innerText(), `Sam Sender (${sender.email})`);
  assert.equal(await claim.getByTestId('claim-mode').innerText(), `The files unlock when the document “NDA ${id}” is signed by everyone.`);
  await stateOf(claim, /Waiting/);
  const row = claim.getByTestId('claim-file');
  assert.match(await row.innerText(), new RegExp(`${file.name}[\\s\\S]*zip[\\s\\S]*${sha256(file.bytes)}`));
  assert.equal(await claim.getByTestId('claim-download').count(), 0, 'no Download while it waits');
  assert.ok(!new RegExp(['esc', 'row'].join(''), 'i').test(await claim.content()), 'the word SPEC Guarantee 7 forbids is absent');
  await assertAccessible(claim, 'the claim page while the package waits');

  // Both signers sign at their sign links; the Receiving Party fills the required title.
  const first = await openSignPage(dana);
  await first.getByTestId('signature-open').click();
  await first.getByTestId('tab-type').click();
  await first.getByTestId('signature-apply').click();
  await first.getByTestId('signature-preview').locator('img').waitFor();
  await consentAndSign(first);
  await claim.reload();
  await stateOf(claim, /Waiting/);
  assert.equal(await claim.getByTestId('claim-download').count(), 0, 'one signature does not unlock it');

  const second = await openSignPage(rey);
  await second.getByTestId('signature-open').click();
  await second.getByTestId('tab-draw').click();
  const box = (await second.getByTestId('draw-canvas').boundingBox())!;
  await second.mouse.move(box.x + 30, box.y + box.height * 0.6);
  await second.mouse.down();
  for (let step = 1; step <= 24; step += 1)
    await second.mouse.move(box.x + 30 + (step * (box.width - 60)) / 24, box.y + box.height * (0.55 - 0.25 * Math.sin(step / 2.5)), {
      steps: 3,
    });
  await second.mouse.up();
  await second.getByTestId('signature-apply').click();
  await second.getByTestId('signature-preview').locator('img').waitFor();
  await second.getByTestId('widget-receiving-title').fill('Chief Counsel');
  await consentAndSign(second);
  await waitForDocument(stack, sender.key, created.body.document_id, (document) => document.status === 'completed', 'the NDA to complete');

  // The recipient reloads: ready; Download hands over the file itself.
  await waitFor('the claim page to say ready', async () => {
    await claim.reload();
    return /Ready to download/.test(await claim.getByTestId('claim-state').innerText());
  });
  assert.ok(!(await claim.content()).includes('/files/transfers/'), 'the page holds no file URL');
  await assertAccessible(claim, 'the claim page ready to download');
  const [download] = await Promise.all([claim.waitForEvent('download'), claim.getByTestId('claim-download').click()]);
  assert.equal(download.suggestedFilename(), file.name);
  const received = fs.readFileSync((await download.path())!);
  assert.equal(sha256(received), sha256(file.bytes));
  const detail = await call(stack.url, 'GET', `/v1/transfers/${transferId}`, { key: sender.key });
  assert.equal(detail.body.status, 'released', detail.text);
});

it('accept-to-unlock: each recipient clicks Accept on their claim page; the second one unlocks the files (on a phone)', async () => {
  const id = tag();
  const [ann, bob] = [
    { name: 'Ann Accepter', email: `ann-${id}@example.test` },
    { name: 'Bob Accepter', email: `bob-${id}@example.test` },
  ];
  const transferId = await offer({
    name: 'Accept pack',
    drive_file_ids: [await upload(0)],
    recipients: [ann, bob],
    requires_acceptance: true,
  });
  const phone = { width: 390, height: 800 };

  const annPage = await newPage(ann.email, phone);
  await annPage.goto(await claimLinkMailed(ann.email, 'Accept pack'));
  assert.equal(await annPage.getByTestId('claim-mode').innerText(), 'The files unlock when every recipient has accepted them.');
  assert.equal(await annPage.getByTestId('claim-accepted').innerText(), '0 of 2 recipients');
  await stateOf(annPage, /Waiting/);
  await assertAccessible(annPage, 'the claim page asking to accept, on a phone');
  await annPage.getByTestId('claim-accept').click();
  await annPage
    .getByTestId('notice')
    .filter({ hasText: /You accepted the files/ })
    .waitFor();
  assert.equal(await annPage.getByTestId('claim-accepted').innerText(), '1 of 2 recipients');
  await stateOf(annPage, /Waiting[\s\S]*1 of 2 recipients have accepted/);
  assert.equal(await annPage.getByTestId('claim-accept').count(), 0);
  assert.equal(await annPage.getByTestId('claim-download').count(), 0);

  const bobPage = await newPage(bob.email, phone);
  await bobPage.goto(await claimLinkMailed(bob.email, 'Accept pack'));
  await bobPage.getByTestId('claim-accept').click();
  await bobPage
    .getByTestId('notice')
    .filter({ hasText: /You accepted the files/ })
    .waitFor();
  assert.equal(await bobPage.getByTestId('claim-accepted').innerText(), '2 of 2 recipients');
  await stateOf(bobPage, /Ready to download/);
  await bobPage.getByTestId('claim-download').waitFor();
  // The page fits the phone's width: nothing scrolls sideways, the SHA-256 wraps.
  const overflow = await bobPage.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  assert.equal(overflow, 0);
  const [download] = await Promise.all([bobPage.waitForEvent('download'), bobPage.getByTestId('claim-download').click()]);
  assert.equal(sha256(fs.readFileSync((await download.path())!)), sha256(samples[0].bytes));
  assert.equal((await call(stack.url, 'GET', `/v1/transfers/${transferId}`, { key: sender.key })).body.status, 'released');
});

it('no page broke its CSP or threw', () => {
  assert.deepEqual(problems, []);
});
