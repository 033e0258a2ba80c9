// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Template } from '../../db/models';
import { connect } from '../../test/contacts';
import { createDocument, SignerSession, seedSamples, sentNda, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { account, app, page, path, stack, useAppStack } from '../../test/fixtures/app';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { AppClient, grantMandate, principalOf } from '../../test/principal';

useAppStack();

const signature = { method: 'drawn', image: dataUrl(signaturePng()) };
/** The ids of the documents listed on an inbox page, in order. */
const listed = (html: string) => [...html.matchAll(/<tr data-document="([^"]+)">/g)].map((match) => match[1]);

let sender: Account;
let senderNda: Template;
let ownNda: Template;
/** Sent by another tenant to Ada: her own signature is pending. */
let waitingId: string;
/** Sent by Ada's agent to two outsiders, still in progress. */
let sentId: string;
/** Sent by Ada's agent and signed by both outsiders. */
let completedId: string;
/** Sent by Ada's agent and declined by one outsider. */
let declinedId: string;

async function ownDocument(name: string, signers: Array<{ name: string; email: string }>) {
  const created = await createDocument(stack, account, { template_id: ownNda.id, name, signers, send: true });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

const outsider = (name: string) => ({
  name,
  email: `${name.toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`,
});

describe('the documents inbox and document page', () => {
  before(async () => {
    sender = await createAccount(stack.deps.db, { name: 'Sofia Sender' });
    ({ nda: senderNda } = await seedSamples(stack, sender));
    ({ nda: ownNda } = await seedSamples(stack, account));
    const ada = await principalOf(stack, account);
    waitingId = (
      await sentNda(
        stack,
        sender,
        senderNda,
        { name: ada.name, email: ada.email },
        { name: 'NDA waiting for Ada', other: { name: 'Quentin Quill' } },
      )
    ).document_id;
    sentId = (await ownDocument('Supplier NDA', [outsider('Xavier'), outsider('Yolanda')])).document_id;

    const done = await ownDocument('Finished NDA', [outsider('Paula'), outsider('Rufus')]);
    completedId = done.document_id;
    const titleId = ownNda.widgets.find((w) => w.role === 'Receiving Party' && w.type === 'text')!.id;
    const [p, r] = done.signers.map((s: { sign_url: string; email: string }) => new SignerSession(stack, s.sign_url, s.email));
    await Promise.all([p.verify(), r.verify()]);
    assert.equal((await p.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
    assert.equal((await r.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CEO' } })).status, 200);
    await waitForDocument(stack, account.key, completedId, (d) => d.status === 'completed', 'the finished NDA to complete');

    const refused = await ownDocument('Refused NDA', [outsider('Dora'), outsider('Emil')]);
    declinedId = refused.document_id;
    const dora = await new SignerSession(stack, refused.signers[0].sign_url, refused.signers[0].email).verify();
    assert.equal((await dora.request('POST', '/decline', { reason: 'Not for us' })).status, 200);
  });

  it('the overview lists a document waiting for the principal’s own signature (no longer “Nothing is waiting for you”)', async () => {
    const { html } = await page('/');
    assert.doesNotMatch(html, /Nothing is waiting for you/);
    assert.ok(
      html.includes(`href="${path(`/documents/${waitingId}`)}" data-testid="waiting-document-link"><strong>NDA waiting for Ada</strong>`),
      html,
    );
  });

  it('each section lists its documents: waiting for me, sent by me or my agents, completed, declined/expired/voided, all', async () => {
    const section = async (name: string) => listed((await page(`/documents?section=${name}`)).html);
    const waiting = await section('waiting');
    assert.deepEqual(waiting, [waitingId]);
    assert.deepEqual(listed((await page('/documents')).html), waiting, 'waiting is the default section');
    const sent = await section('sent');
    assert.ok(sent.includes(sentId) && !sent.includes(waitingId) && !sent.includes(completedId) && !sent.includes(declinedId), sent.join());
    assert.deepEqual(await section('completed'), [completedId]);
    assert.deepEqual(await section('closed'), [declinedId]);
    const all = await section('all');
    for (const id of [waitingId, sentId, completedId, declinedId]) assert.ok(all.includes(id), `all lacks ${id}`);
    const { html } = await page('/documents?section=waiting');
    assert.match(html, /data-testid="your-signature">your signature</);
    assert.match(html, /Quentin Quill &lt;/, 'the counterparty is named');
    assert.match((await page('/documents?section=completed')).html, /aria-current="page">Completed</);
  });

  it('searches by document name and by counterparty name or e-mail, within the section', async () => {
    const search = async (section: string, q: string) =>
      listed((await page(`/documents?section=${section}&q=${encodeURIComponent(q)}`)).html);
    assert.deepEqual(await search('all', 'finished'), [completedId]);
    assert.deepEqual(await search('all', 'yolanda'), [sentId]);
    assert.deepEqual(await search('all', 'Quentin'), [waitingId]);
    assert.deepEqual(await search('completed', 'yolanda'), []);
    assert.deepEqual(await search('all', '100%_'), [], 'LIKE wildcards are searched as text');
    const { html } = await page('/documents?section=all&q=nothing-like-this');
    assert.match(html, /data-testid="inbox-empty">No documents match “nothing-like-this” here/);
    assert.match(html, /name="q" type="search" maxlength="200" value="nothing-like-this"/);
  });

  it('pages with a cursor: every document once, newest first; a bad cursor or section is a 400 page', async () => {
    const whole = listed((await page('/documents?section=all&limit=100')).html);
    const paged: string[] = [];
    let next: string | undefined = path('/documents?section=all&limit=1');
    while (next) {
      const html: string = await (await app.get(next)).text();
      paged.push(...listed(html));
      const href: string | undefined = /href="([^"]+)" data-testid="next-page"/.exec(html)?.[1];
      next = href?.replaceAll('&amp;', '&');
    }
    assert.deepEqual(paged, whole);
    assert.ok(whole.length >= 4);
    assert.equal((await page('/documents?section=all&cursor=bm9wZQ')).status, 400);
    assert.equal((await page('/documents?section=everything')).status, 400);
    assert.equal((await page('/documents?limit=1000')).status, 400);
  });

  it('a document page shows status, signers and how each signed, the audit trail and the PDF; a stranger gets 404', async () => {
    const { status, html } = await page(`/documents/${completedId}`);
    assert.equal(status, 200, html);
    assert.match(html, /data-testid="document-status">completed</);
    assert.equal((html.match(/data-testid="signed-how">drawn at the sign link, <time/g) ?? []).length, 2, 'both signers signed by drawing');
    assert.match(html, /data-testid="audit-trail"/);
    for (const action of ['document.created', 'document.sent', 'sign.email_verified', 'document.signed', 'document.completed'])
      assert.ok(html.includes(`data-action="${action}"`), `the trail on the page lacks ${action}`);
    assert.ok(html.includes(`href="${path(`/documents/${completedId}/download`)}" data-testid="download">Download the completed PDF`));
    const pdf = await app.get(path(`/documents/${completedId}/download`));
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.doesNotMatch(html, /data-testid="void-form"/, 'a completed document cannot be voided');
    assert.doesNotMatch(html, /data-testid="sign-now"/);

    assert.equal((await page(`/documents/${completedId}?audit_cursor=bm9wZQ`)).status, 400, 'a cursor this app did not give');

    const stranger = await new AppClient(stack, (await createAccount(stack.deps.db)).email).login();
    for (const suffix of [`/documents/${completedId}`, `/documents/${completedId}/download`, '/documents/doc_nosuchdocument'])
      assert.equal((await stranger.get(path(suffix))).status, 404, suffix);
    const anonymous = await fetch(`${stack.url}${path(`/documents/${completedId}`)}`, { redirect: 'manual' });
    assert.equal(anonymous.status, 302, 'not signed in: sent to sign in');
  });

  it('a sent document of mine has the void form (reason and the form token, posted to …/void); an inbound one has not', async () => {
    const { html } = await page(`/documents/${sentId}`);
    const form = /<form method="post" action="([^"]+)" data-testid="void-form">([\s\S]*?)<\/form>/.exec(html);
    assert.ok(form, html);
    assert.equal(form[1], path(`/documents/${sentId}/void`));
    assert.match(form[2], /<input type="hidden" name="_csrf" value="[^"]+">/);
    assert.match(form[2], /<textarea id="void-reason" name="reason"/);
    assert.doesNotMatch((await page(`/documents/${waitingId}`)).html, /data-testid="void-form"/);
    assert.doesNotMatch((await page(`/documents/${declinedId}`)).html, /data-testid="void-form"/);
  });

  it('the offers on a document are listed on its page, for the offeror and for me as the counterparty', async () => {
    const { fromContact } = await connect(stack, sender, account, { name: 'Ada' });
    const offer = await call(stack.url, 'POST', `/v1/documents/${waitingId}/offers`, {
      key: sender.key,
      body: { contact_id: fromContact, terms: 'Mutual NDA, two years' },
    });
    assert.equal(offer.status, 201, offer.text);
    const { html } = await page(`/documents/${waitingId}`);
    assert.ok(html.includes(`data-offer="${offer.body.offer_id}"`), html);
    assert.match(html, /Mutual NDA, two years/);
    assert.ok(html.includes('data-action="offer.created"'), 'the offer is on the audit trail');
    const senderApp = await new AppClient(stack, sender.email).login();
    assert.match(await (await senderApp.get(path(`/documents/${waitingId}`))).text(), /Mutual NDA, two years/);
  });

  it('“sign now” takes me to my sign link, or to my open L1 confirm page once my agent asked', async () => {
    let { html } = await page(`/documents/${waitingId}`);
    const signNow = /href="([^"]+)" data-testid="sign-now"/.exec(html)?.[1];
    assert.ok(signNow?.startsWith(`${new URL(stack.config.appUrl).pathname.replace(/\/$/, '')}/sign/`), signNow);
    const signPage = await fetch(`${stack.url}${signNow}`);
    assert.equal(signPage.status, 200);
    assert.match(html, /data-testid="signed-how"|Not yet/);
    assert.match(html, /<strong>\(you\)<\/strong>/);

    await grantMandate(stack, account, { level: 'L1', mode: 'inbound', name: 'Inbox L1' });
    const request = await call(stack.url, 'POST', `/v1/documents/${waitingId}/sign-requests`, {
      key: account.key,
      body: { reason: 'Inbox review' },
    });
    assert.equal(request.status, 201, request.text);
    ({ html } = await page(`/documents/${waitingId}`));
    const confirm = new URL(request.body.confirm_url).pathname;
    assert.ok(html.includes(`href="${confirm}" data-testid="sign-now"`), html);
    assert.match(html, /data-testid="sign-requests"/);
    assert.match(html, /Inbox review/);
    // The overview lists the request once (its confirm link), not the document a second time.
    const overview = (await page('/')).html;
    assert.ok(overview.includes(`href="${confirm}" data-testid="sign-request-link"`));
    assert.ok(!overview.includes(`/documents/${waitingId}" data-testid="waiting-document-link"`));
    assert.deepEqual(listed((await page('/documents?section=waiting')).html), [waitingId]);
  });
});
