import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { DocumentRevision, Event } from '../../../db/models';
import { randomBase62 } from '../../../lib/ids';
import { assertAccessible } from '../../../test/browser';
import { createDocument, latestMail } from '../../../test/documents';
import {
  consentAndSign,
  documentStatus,
  drawOn,
  drawSignature,
  mailedCode,
  openSignPage,
  owner,
  problems,
  run,
  type SentSigner,
  scratch,
  sendNda,
  services,
  stack,
  textOf,
  useSignPage,
  verify,
} from '../../../test/fixtures/sign-page';
import { call } from '../../../test/http';
import { signaturePng } from '../../../test/images';
import { waitFor } from '../../../test/wait';

useSignPage();

it('two signers sign the NDA in the browser (drawn, then typed with fields) and the sealed PDF verifies', async () => {
  const doc = await sendNda();
  const [dana, rey] = doc.signers;

  const first = await openSignPage(dana);
  await first.getByText('we e-mail a 6-digit code to').waitFor();
  assert.match(await first.locator('main').innerText(), /d•+@example\.test/);
  await assertAccessible(first, 'the sign page asking for a code');
  await verify(first, dana.email);
  await assertAccessible(first, 'the sign page with the document and its fields');
  assert.match(await first.getByTestId('signer').innerText(), /Dana Discloser, Disclosing Party/);
  // Own widgets are editable and highlighted; the other party's are muted and inert.
  assert.equal(await first.locator('[data-testid="widget-disclosing-signature"].mine').count(), 1);
  assert.equal(await first.locator('[data-testid="widget-receiving-title"].theirs').count(), 1);
  assert.equal(await first.locator('input[data-testid="widget-receiving-title"]').count(), 0);
  assert.equal(await first.getByTestId('widget-disclosing-name').innerText(), 'Dana Discloser');
  assert.match(await first.getByTestId('widget-disclosing-date').innerText(), /^\d{4}-\d{2}-\d{2}$/);
  // The overlay sits on the page where the widget is: x 54pt of 612pt.
  const pageBox = (await first.getByTestId('page-1').boundingBox())!;
  const widgetBox = (await first.getByTestId('widget-disclosing-signature').boundingBox())!;
  assert.ok(Math.abs((widgetBox.x - pageBox.x) / pageBox.width - 54 / 612) < 0.01, JSON.stringify({ pageBox, widgetBox }));
  assert.equal(await first.getByTestId('sign-submit').isDisabled(), true);
  assert.match(await first.getByTestId('missing').innerText(), /Add your signature/);
  await drawSignature(first);
  assert.equal(await first.getByTestId('sign-submit').isDisabled(), true, 'consent not ticked yet');
  await consentAndSign(first);
  assert.match(await first.getByTestId('closed-reason').innerText(), /other signers are asked next/);

  const second = await openSignPage(rey);
  await verify(second, rey.email);
  await second.getByTestId('signature-open').click();
  await second.getByTestId('tab-type').click();
  await assertAccessible(second, 'the signature dialog');
  assert.equal(await second.getByTestId('typed-name').inputValue(), 'Rey Receiver');
  await second.getByTestId('signature-apply').click();
  await second.getByTestId('signature-preview').locator('img').waitFor();
  await second.getByTestId('consent').check();
  assert.equal(await second.getByTestId('sign-submit').isDisabled(), true, 'Title is required');
  assert.match(await second.getByTestId('missing').innerText(), /Title/);
  await second.getByTestId('widget-receiving-title').fill('Chief Counsel');
  await second.getByTestId('widget-receiving-copy').check();
  await second.getByTestId('widget-receiving-term').selectOption('2 years');
  await consentAndSign(second);
  await assertAccessible(second, 'the sign page once signed');

  const final = await documentStatus(doc.id, 'completed');
  assert.deepEqual(
    final.signers.map((signer: { status: string }) => signer.status),
    ['signed', 'signed'],
  );
  const download = await call(stack.url, 'GET', `/v1/documents/${doc.id}/download`, { key: owner.key });
  assert.equal(download.status, 200, download.text);
  const url = new URL(download.body.url);
  const pdf = await fetch(`${stack.url}${url.pathname}${url.search}`);
  assert.equal(pdf.status, 200);
  const file = path.join(scratch, 'nda.pdf');
  fs.writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));

  const sig = run('pdfsig', [file]);
  assert.match(sig.out, /Signature is Valid\./, sig.out);
  assert.match(sig.out, /Total document signed/, sig.out);
  assert.equal(run('qpdf', ['--check', file]).status, 0);
  const text = run('pdftotext', [file, '-']).out;
  for (const expected of ['Certificate of Completion', 'Dana Discloser', dana.email, 'Rey Receiver', rey.email, 'Chief Counsel', '2 years'])
    assert.ok(text.includes(expected), `pdftotext lacks ${expected}`);
  assert.match(text, /browser \(drawn\)/);
  assert.match(text, /browser \(typed\)/);

  // Completion reaches everyone: each signer and the sender get the completed PDF by a mailed link.
  for (const email of [dana.email, rey.email, owner.email]) {
    const mail = await waitFor(`the completion mail to ${email}`, () => latestMail(stack, email, 'document-completed'));
    assert.match(mail.subject, /Completed: .* is signed by everyone/);
    const link = /(http\S+\/files\/documents\/\S+)/.exec(mail.text)?.[1];
    assert.ok(link, mail.text);
    const copy = await fetch(`${stack.url}${new URL(link).pathname}${new URL(link).search}`);
    assert.equal(copy.status, 200, `${email}: the mailed link serves the completed PDF`);
    assert.deepEqual(Buffer.from(await copy.arrayBuffer()), fs.readFileSync(file));
    assert.equal(mail.text.includes(dana.email) && mail.text.includes(rey.email), true, 'names every signer');
    assert.equal(/your sign link/.test(mail.text), email !== owner.email, 'signers may fetch it again from their sign link');
  }
  // And the signer's own page offers the completed copy, for a stated time.
  await second.reload();
  await second.getByTestId('copy-until').waitFor();
  assert.match(await second.getByTestId('download').innerText(), /completed copy/);
  const viaLink = await second.evaluate(
    async (href) => {
      const response = await fetch(href, { credentials: 'same-origin' });
      return { status: response.status, size: (await response.arrayBuffer()).byteLength };
    },
    (await second.getByTestId('download').getAttribute('href')) ?? '',
  );
  assert.deepEqual(viaLink, { status: 200, size: fs.statSync(file).size });
});

it('a signature that cannot be applied: the signer sees why, keeps what they entered (also across a reload), and signs again', async () => {
  const doc = await sendNda();
  const rey = doc.signers[1];
  const page = await openSignPage(rey);
  await verify(page, rey.email);
  await drawSignature(page);
  await page.getByTestId('widget-receiving-title').fill('Chief Counsel');
  await page.getByTestId('widget-receiving-term').selectOption('2 years');
  await page.getByTestId('consent').check();
  // The document's PDF goes missing from the blob store: every attempt of the apply fails.
  const revision = (await DocumentRevision.query(stack.deps.db).findById([doc.id, 0]))!;
  const blob = path.join(stack.config.dataDir, 'blobs', revision.unsealed_sha256.slice(0, 2), revision.unsealed_sha256);
  fs.renameSync(blob, `${blob}.away`);
  try {
    await page.getByTestId('sign-submit').click();
    assert.match(await textOf(page, 'alert', /could not be applied/), /Nothing was signed|nothing was applied/i);
    assert.equal(await page.getByTestId('widget-receiving-title').inputValue(), 'Chief Counsel');
    assert.equal(await page.getByTestId('signature-preview').locator('img').count(), 1);
    assert.equal(await page.getByTestId('sign-submit').isEnabled(), true, 'can sign again');
    // The sender is told: the document shows the rejection, and document.sign_failed is in the outbox.
    const seen = await call(stack.url, 'GET', `/v1/documents/${doc.id}`, { key: owner.key });
    const apply = seen.body.signers[1].apply;
    assert.equal(apply.status, 'rejected', seen.text);
    assert.equal(apply.error.code, 'sign_failed');
    const events = await Event.query(stack.deps.db).where({ tenant_id: owner.tenantId, event: 'document.sign_failed' });
    assert.ok(events.some((event) => event.data.document_id === doc.id && event.data.code === 'sign_failed'));
    const told = await waitFor('the rejection mail', () => latestMail(stack, rey.email, 'apply-rejected'));
    assert.match(told.text, /sign again at your link: http/);
    // A reload keeps the entries and says why the last signature was not applied.
    await page.reload();
    await page.locator('[data-testid="page-1"][data-rendered]').waitFor();
    await textOf(page, 'alert', /could not be applied/);
    assert.equal(await page.getByTestId('widget-receiving-title').inputValue(), 'Chief Counsel');
    assert.equal(await page.getByTestId('signature-preview').locator('img').count(), 1);
  } finally {
    fs.renameSync(`${blob}.away`, blob);
  }
  await consentAndSign(page);
  const final = await documentStatus(doc.id, 'sent');
  assert.equal(final.signers[1].status, 'signed');
  assert.equal(final.signers[1].apply.status, 'applied');
});

it('a wrong code shows the error, the right one opens the document, and an uploaded PNG signs it', async () => {
  const doc = await sendNda();
  const [dana] = doc.signers;
  const page = await openSignPage(dana, { width: 390, height: 844 });
  await page.getByTestId('send-code').click();
  await textOf(page, 'status', /We sent a code to/);
  const code = await mailedCode(dana.email);
  await page.getByTestId('code-input').fill(code === '000000' ? '111111' : '000000');
  await page.getByTestId('verify').click();
  await textOf(page, 'alert', /That code is not right/);
  await page.getByTestId('code-input').fill(code);
  await page.getByTestId('verify').click();
  await page.locator('[data-testid="page-1"][data-rendered]').waitFor();
  assert.equal(await page.getByTestId('alert').innerText(), '');

  const text = path.join(scratch, 'notes.txt');
  const png = path.join(scratch, 'signature.png');
  fs.writeFileSync(text, 'not an image');
  fs.writeFileSync(png, signaturePng(240, 80));
  await page.getByTestId('signature-open').click();
  await page.getByTestId('tab-upload').click();
  await page.getByTestId('upload-input').setInputFiles(text);
  await textOf(page, 'dialog-alert', /not a PNG or JPEG/);
  await page.getByTestId('upload-input').setInputFiles(png);
  await page.getByTestId('upload-preview').waitFor();
  await page.getByTestId('signature-apply').click();
  const preview = await page.getByTestId('signature-preview').locator('img').getAttribute('src');
  assert.equal(preview, `data:image/png;base64,${signaturePng(240, 80).toString('base64')}`, 'the file is sent as it is');
  await consentAndSign(page);
  const href = await page.getByTestId('download').getAttribute('href');
  const copy = await page.request.get(`${stack.url}${href}`);
  assert.equal(copy.headers()['content-type'], 'application/pdf');
  assert.equal((await copy.body()).subarray(0, 5).toString(), '%PDF-');
  const after = await documentStatus(doc.id, 'sent');
  assert.deepEqual(
    after.signers.map((signer: { status: string }) => signer.status),
    ['signed', 'pending'],
  );
});

it('a signer declines from the page and the document is declined', async () => {
  const doc = await sendNda();
  const [, rey] = doc.signers;
  const page = await openSignPage(rey);
  await verify(page, rey.email);
  await page.getByTestId('decline-open').click();
  await page.getByTestId('decline-reason').fill('The term is too long.');
  await page.getByTestId('decline-confirm').click();
  await textOf(page, 'status', /You declined to sign this document/);
  assert.equal(await page.getByTestId('sign-submit').count(), 0);
  await documentStatus(doc.id, 'declined');
});

it('under strict order the second signer waits for the first, then can sign', async () => {
  const doc = await sendNda({ strictOrder: true });
  const [dana, rey] = doc.signers;
  const second = await openSignPage(rey);
  await verify(second, rey.email);
  assert.match(await textOf(second, 'closed-reason', /Waiting for Dana Discloser/), /sign first/);
  assert.equal(await second.getByTestId('sign-submit').count(), 0);
  assert.equal(await second.locator('input[data-testid="widget-receiving-title"]').count(), 0, 'fields stay read-only');

  const first = await openSignPage(dana);
  await verify(first, dana.email);
  await first.getByTestId('signature-open').click();
  await first.getByTestId('tab-type').click();
  await first.getByTestId('signature-apply').click();
  await consentAndSign(first);

  // "Check again" looks at once; the page also looks by itself every 10 s, and on a slow machine it may
  // have done so while the first signer signed: then the button is gone and the form already there.
  const recheck = second.getByTestId('recheck');
  if (await recheck.isVisible())
    await recheck.click({ timeout: 5000 }).catch(async (error: unknown) => {
      if (await recheck.isVisible()) throw error;
    });
  await second.getByTestId('sign-submit').waitFor();
  assert.equal(await second.getByTestId('sign-submit').isDisabled(), true);
  await drawSignature(second);
  await second.getByTestId('widget-receiving-title').fill('Director');
  await consentAndSign(second);
  await documentStatus(doc.id, 'completed');
});

it('the 50-page agreement renders pages as they come into view, and drawn initials sign every page', async () => {
  const tag = randomBase62(6).toLowerCase();
  const created = await createDocument(stack, owner, {
    template_id: services.id,
    name: `MSA ${tag}`,
    signers: [
      { name: 'Cleo Client', email: `cleo-${tag}@example.test` },
      { name: 'Paul Provider', email: `paul-${tag}@example.test` },
    ],
    send: true,
  });
  assert.ok(created.status < 300, created.text);
  const [cleo] = created.body.signers as SentSigner[];
  const page = await openSignPage(cleo);
  await verify(page, cleo.email);
  await page.getByTestId('page-50').waitFor({ state: 'attached' });
  assert.equal((await page.locator('.page[data-rendered]').count()) < 10, true, 'only the pages near the viewport are drawn');
  assert.equal(await page.getByTestId('widget-client-initials-p7').innerText(), 'CC');
  assert.match(await page.getByTestId('initials-preview').innerText(), /letters “CC”/);

  await page.getByTestId('next-field').click();
  await page.locator('[data-testid="page-50"][data-rendered]').waitFor();
  assert.equal(await page.evaluate('document.activeElement.dataset.testid'), 'widget-client-signature');

  await page.getByTestId('initials-open').click();
  await drawOn(page);
  await page.getByTestId('signature-apply').click();
  await page.getByTestId('initials-preview').locator('img').waitFor();
  assert.equal(await page.getByTestId('widget-client-initials-p7').locator('img').count(), 1);
  await page.getByTestId('widget-client-signature').click();
  await page.getByTestId('tab-type').click();
  await page.getByTestId('signature-apply').click();
  await consentAndSign(page);
});

it('no page broke its CSP or threw', () => {
  assert.deepEqual(problems, []);
});
