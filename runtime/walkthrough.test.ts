import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, watchProblems } from '../test/browser';
import { ROOT } from '../test/cli';
import { call } from '../test/http';
import { type EmbeddedSetup, embeddedSetup, killLeftovers, type ServicePorts, startRunning, stopWithCtrlC } from '../test/npm-start';
import { pdfsig, pdfText } from '../test/pdf-tools';
import { waitFor } from '../test/wait';
import { ConsoleInbox, Walk } from '../test/walkthrough';

// The README's walk-through, as a new user follows it on a fresh machine: the real `npm start` on its
// embedded defaults (PGlite, its own Temporal dev server, no SMTP) in a fresh data dir, each command
// of the walk run as written in a shell, each page step done in a real Chromium, every code read from
// the mails npm start prints on its console. Then Ctrl-C, and a second start that keeps the state.

describe('the README walk-through, on npm start’s embedded defaults', () => {
  let setup: EmbeddedSetup;
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let ports: ServicePorts;
  let walk: Walk;
  let browser: Browser;
  /** Uncaught page errors and CSP violations: every page must run clean under its CSP. */
  const problems: string[] = [];

  before(async () => {
    setup = await embeddedSetup();
    ({ dataDir, env, ports } = setup);
    // The user's shell: nothing of the npm that runs these tests.
    const shellEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('npm_')));
    walk = new Walk('README.md', 'Walk-through', { env: shellEnv, port: ports.api });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    killLeftovers(dataDir);
    walk?.cleanUp();
  });

  const start = () => startRunning(setup);

  async function newPage(who: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    watchProblems(page, problems, who);
    return page;
  }

  /** A stroke with real mouse moves on a drawing canvas. */
  async function draw(page: Page, testId: string): Promise<void> {
    const box = await page.getByTestId(testId).boundingBox();
    assert.ok(box, testId);
    await page.mouse.move(box.x + 30, box.y + box.height * 0.6);
    await page.mouse.down();
    for (let step = 1; step <= 20; step += 1)
      await page.mouse.move(box.x + 30 + (step * (box.width - 60)) / 20, box.y + box.height * (0.55 - 0.25 * Math.sin(step / 2.5)), {
        steps: 2,
      });
    await page.mouse.up();
  }

  async function notice(page: Page, pattern: RegExp): Promise<void> {
    await page.getByTestId('notice').filter({ hasText: pattern }).waitFor();
  }

  /** Steps 4 and 7 of the walk: sign in to the app, store a drawn signature, grant the key an L2 mandate for both directions. */
  async function letTheAgentSign(page: Page, inbox: ConsoleInbox, email: string, keyLabel: string): Promise<void> {
    const app = `http://localhost:${ports.api}/app`;
    await page.goto(app);
    await page.getByTestId('login-email').fill(email);
    await page.getByTestId('login-send').click();
    await page.getByTestId('login-code').fill(await inbox.code(email, /Your sign-in code/));
    await page.getByTestId('login-verify').click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Signature' }).click();
    await draw(page, 'draw-canvas');
    await page.getByTestId('signature-draw-save').click();
    await notice(page, /Your signature is stored/);

    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Mandates' }).click();
    await page.getByTestId('grant-mandate').click();
    const option = page.getByTestId('grant-key').locator('option').filter({ hasText: keyLabel });
    await page.getByTestId('grant-key').selectOption((await option.getAttribute('value'))!);
    await page.getByTestId('grant-name').fill(`${keyLabel} signs`);
    await page.getByTestId('level-L2').check();
    await page.getByTestId('mode-both').check();
    assert.equal(await page.getByTestId('consent-version').innerText(), 'mandate-consent-v2');
    await page.getByTestId('grant-consent').check();
    await page.getByTestId('grant-submit').click();
    await page.getByTestId('grant-code').fill(await inbox.code(email, /Your code to grant the mandate/));
    await page.getByTestId('grant-confirm').click();
    await notice(page, /is active/);
  }

  /** The document as its sender's key sees it once `check` holds (an apply answered 202 is still being made). */
  async function documentOnceSo(key: string, id: string, check: (document: any) => boolean, what: string): Promise<any> {
    return waitFor(
      what,
      async () => {
        const seen = await call(`http://127.0.0.1:${ports.api}`, 'GET', `/v1/documents/${id}`, { key });
        return check(seen.body) && seen.body;
      },
      60_000,
    );
  }

  it('completes documents signed in the browser, by L2 and by L1, settles an offer between two agents and releases a sign-to-unlock package; Ctrl-C stops it all and a second start keeps the state', async () => {
    const started = await start();
    const inbox = new ConsoleInbox(started.stdout);

    // 1. An account, its key and the sample templates.
    const ann = await walk.run(/create-principal --email ann@example\.com/);
    assert.equal(ann.json.plan, 'business');
    walk.take('TENANT', ann.json.tenant_id);
    const key = walk.take('KEY', (await walk.run(/create-key --email ann@example\.com --label "ops agent"/)).json.key);
    assert.match(key, /^svc_[0-9A-Za-z]{32}$/);
    const me = await walk.run(/\/v1\/me$/);
    assert.equal(me.json.principal.email, 'ann@example.com', me.stdout);
    assert.equal(me.json.tenant_id, ann.json.tenant_id);
    const samples = (await walk.run(/seed-samples --tenant \$TENANT/)).json.templates as Array<{ template_id: string; name: string }>;
    const template = (name: string) => samples.find((sample) => sample.name === name)?.template_id;
    walk.take('NDA', template('Mutual NDA (sample)'));
    walk.take('SERVICES', template('Master services agreement (sample, 50 pages)'));

    // 2. The agent sends the NDA to Ann and Bob.
    const sent = await walk.run(/"name": "NDA"/);
    assert.equal(sent.json.status, 'sent', sent.stdout);
    const doc = walk.take('DOC', sent.json.document_id);
    const bobLink: string = sent.json.signers.find((signer: { email: string }) => signer.email === 'bob@example.com').sign_url;
    assert.ok((await inbox.next('bob@example.com', /sent you "NDA" to sign/)).text.includes(bobLink), 'Bob is mailed his link');

    // 3. Bob signs in the browser, with the code mailed to him.
    const bob = await newPage('Bob at his sign link');
    await bob.goto(bobLink);
    await bob.getByTestId('send-code').click();
    await bob.getByTestId('code-input').fill(await inbox.code('bob@example.com', /Your code to open "NDA"/));
    await bob.getByTestId('verify').click();
    await bob.locator('[data-testid="page-1"][data-rendered]').waitFor();
    await bob.getByTestId('widget-receiving-title').fill('Engineer');
    // The term is the agent's, locked in the PDF: no field of Bob's.
    assert.equal(await bob.getByTestId('widget-receiving-term').count(), 0);
    await bob.getByTestId('widget-receiving-copy').check();
    await bob.getByTestId('signature-open').click();
    await bob.getByTestId('tab-draw').click();
    await draw(bob, 'draw-canvas');
    await bob.getByTestId('signature-apply').click();
    await bob.getByTestId('signature-preview').locator('img').waitFor();
    await bob.getByTestId('consent').check();
    await bob.getByTestId('sign-submit').click();
    await bob
      .getByTestId('status')
      .filter({ hasText: /^Signed\./ })
      .waitFor({ timeout: 60_000 });

    // 4. Ann signs in to the app, stores her signature and grants the key an L2 mandate.
    const annPage = await newPage('Ann in the app');
    await letTheAgentSign(annPage, inbox, 'ann@example.com', 'ops agent');

    // 5. The agent signs for Ann; the document is completed and its PDF verifies.
    const signed = await walk.run(/\$DOC\/sign -d/);
    assert.equal(signed.json.confirmation_level, 'L2', signed.stdout);
    assert.match(signed.json.status, /^(applied|processing)$/);
    await documentOnceSo(key, doc, (document) => document.status === 'completed', 'the NDA to be completed');
    const completed = await walk.run(/\/v1\/documents\/\$DOC\s/);
    assert.equal(completed.json.status, 'completed', completed.stdout);
    assert.deepEqual(
      completed.json.signers.map((signer: { status: string }) => signer.status),
      ['signed', 'signed'],
    );
    walk.take('URL', (await walk.run(/\$DOC\/download$/)).json.url);
    const shown = await walk.run(/pdfsig nda\.pdf/);
    // What the reader sees: the certification seal (PAdES) valid, then the document timestamp over the
    // whole file, which pdfsig 22 cannot verify itself (the helper checks it, and pdfcpu elsewhere).
    assert.match(shown.stdout, /Signature #1:[\s\S]*Signature Type: ETSI\.CAdES\.detached[\s\S]*Signature is Valid\./, shown.stdout);
    assert.match(shown.stdout, /Signature #2:[\s\S]*Total document signed/, shown.stdout);
    const checked = await pdfsig(fs.readFileSync(path.join(ROOT, 'nda.pdf')));
    assert.ok(checked.valid, checked.report);
    // The term the agent filled in step 2, and Bob's title, as any reader extracts them.
    const text = await pdfText(fs.readFileSync(path.join(ROOT, 'nda.pdf')));
    assert.match(text, /\b2 years\b/);
    assert.match(text, /Engineer/);
    // The service's own verifier, as the README calls it, on the embedded default: valid, and named.
    const verified = await walk.run(/--data-binary @nda\.pdf http:\/\/localhost:3000\/v1\/verify$/);
    assert.equal(verified.json.verdict, 'valid', verified.stdout);
    assert.equal(verified.json.document_id, doc);
    assert.deepEqual(
      verified.json.signatures.map((signature: { kind: string; pades_level: string | null }) => [signature.kind, signature.pades_level]),
      [
        ['certification', 'B-LTA'],
        ['timestamp', null],
      ],
    );
    for (const email of ['ann@example.com', 'bob@example.com']) {
      const mail = await inbox.next(email, /^Completed: "NDA" is signed by everyone/);
      assert.match(mail.text, /http:\/\/localhost:\d+\/\S+/, `${email} gets a link to the completed PDF`);
    }
    assert.ok((await inbox.next('ann@example.com', /Your signature was applied to "NDA"/)).text.includes('L2'), 'the L2 notice');

    // 6. L1: the agent asks; Ann confirms in the app.
    const doc2 = walk.take('DOC2', (await walk.run(/"name": "Second NDA"/)).json.document_id);
    const requested = await walk.run(/\$DOC2\/sign-requests/);
    assert.equal(requested.json.status, 'open', requested.stdout);
    walk.take('REQUEST', requested.json.sign_request_id);
    const confirmMail = await inbox.next('ann@example.com', /Confirm your signature on "Second NDA"/);
    assert.ok(confirmMail.text.includes(requested.json.confirm_url), confirmMail.text);
    await annPage.goto(requested.json.confirm_url);
    await annPage.getByTestId('confirm').click();
    await annPage
      .getByTestId('sign-request-status')
      .filter({ hasText: /^(Signed|Confirmed)/ })
      .waitFor({ timeout: 60_000 });
    await documentOnceSo(key, doc2, (document) => document.signers[0].status === 'signed', 'Ann’s confirmed signature on the second NDA');
    const request = await walk.run(/\/v1\/sign-requests\/\$REQUEST/);
    assert.equal(request.json.status, 'applied', request.stdout);

    // 7. Bob gets an account and a key, and lets his agent sign for him.
    await walk.run(/create-principal --email bob@example\.com/);
    const bobKey = walk.take('BOB_KEY', (await walk.run(/create-key --email bob@example\.com/)).json.key);
    await letTheAgentSign(await newPage('Bob in the app'), inbox, 'bob@example.com', "bob's agent");

    // 8. The two agents become contacts.
    const invited = await walk.run(/\/v1\/contacts -d/);
    assert.equal(invited.json.status, 'invited', invited.stdout);
    walk.take('CONTACT', invited.json.contact_id);
    const bobsContacts = await walk.run(/\$BOB_KEY" http:\/\/localhost:3000\/v1\/contacts$/);
    const invitation = bobsContacts.json.data.find((contact: { pair_id: string }) => contact.pair_id === invited.json.pair_id);
    assert.equal(invitation?.direction, 'inbound', bobsContacts.stdout);
    walk.take('BOB_CONTACT', invitation.contact_id);
    const accepted = await walk.run(/contacts\/\$BOB_CONTACT\/accept/);
    assert.equal(accepted.json.status, 'active', accepted.stdout);

    // 9. The services agreement, and the signed NDA in a sign-to-unlock package for Bob.
    const doc3 = walk.take('DOC3', (await walk.run(/"name": "Services agreement"/)).json.document_id);
    const uploaded = await walk.run(/\/v1\/assets\?filename=nda\.pdf/);
    assert.equal(uploaded.json.kind, 'pdf', uploaded.stdout);
    walk.take('FILE', uploaded.json.drive_file_id);
    const transfer = walk.take('TRANSFER', (await walk.run(/\/v1\/transfers -d/)).json.transfer_id);
    const offered = await walk.run(/\$TRANSFER\/offer/);
    assert.equal(offered.json.can_release, false, offered.stdout);
    walk.take('TOKEN', offered.json.recipients[0].token);
    assert.ok((await inbox.next('bob@example.com', /sent you files: Signed NDA/)).text.includes(offered.json.recipients[0].claim_url));

    // 10. The offer, accepted by Bob's agent under his L2 mandate; Ann's agent signs and completes it.
    const offer = await walk.run(/\$DOC3\/offers/);
    assert.equal(offer.json.to_email, 'bob@example.com', offer.stdout);
    walk.take('OFFER', offer.json.offer_id);
    const acceptedOffer = await walk.run(/offers\/\$OFFER\/accept/);
    assert.equal(acceptedOffer.json.status, 'accepted', acceptedOffer.stdout);
    assert.equal(acceptedOffer.json.confirmation_level, 'l2');
    assert.match(acceptedOffer.json.receipt_jws, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const signed3 = await walk.run(/\$DOC3\/sign -d/);
    assert.match(signed3.json.status, /^(applied|processing)$/, signed3.stdout);
    await documentOnceSo(key, doc3, (document) => document.status === 'completed', 'the services agreement to be completed');
    await waitFor(
      'the package to be released',
      async () => (await call(`http://127.0.0.1:${ports.api}`, 'GET', `/v1/transfers/${transfer}`, { key })).body.can_release,
      60_000,
    );
    const released = await walk.run(/\/v1\/transfers\/\$TRANSFER\s/);
    assert.equal(released.json.can_release, true, released.stdout);

    // 11. Bob's agent claims the package and downloads the very NDA Ann's agent put in it.
    const claimed = await walk.run(/\/v1\/transfers\/claim/);
    assert.equal(claimed.json.bound, true, claimed.stdout);
    assert.equal(claimed.json.transfer.transfer_id, transfer, claimed.stdout);
    const downloads = await walk.run(/\$TRANSFER\/downloads/);
    walk.take('FILE_URL', downloads.json.files[0].url);
    assert.match((await walk.run(/cmp nda\.pdf bob-nda\.pdf/)).stdout, /the same signed NDA/);
    walk.done();

    // Ctrl-C stops everything it started; a second start finds the state as it was left.
    await stopWithCtrlC(started, setup);
    const again = await start();
    const base = `http://127.0.0.1:${ports.api}`;
    for (const id of [doc, doc3]) assert.equal((await call(base, 'GET', `/v1/documents/${id}`, { key })).body.status, 'completed');
    assert.equal((await call(base, 'GET', `/v1/transfers/${transfer}`, { key: bobKey })).body.can_release, true);
    await stopWithCtrlC(again, setup);
  });

  it('no page broke its CSP or threw', () => {
    assert.deepEqual(problems, []);
  });
});
