import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TransferRecipient } from '../../db/models';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { call } from '../../test/http';
import { AppClient } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

// The claim page of a transfer's recipient, over HTTP on the real stack: what a guest sees, the
// Accept and Download buttons, the Origin check of guest forms, the one 404 page for every link
// that opens nothing, and the bind of a signed-in recipient.

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(2)' x='`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;alert(2)&#39; x=&#39;';

describe('the claim page (a recipient without an API key)', () => {
  let stack: Stack;
  let sender: Account;
  let appPath: string;
  let samples: Awaited<ReturnType<typeof driveSamples>>;

  before(async () => {
    stack = await startStack();
    sender = await createAccount(stack.deps.db, { name: 'Sam Sender' });
    appPath = new URL(stack.config.appUrl).pathname.replace(/\/$/, '');
    samples = await driveSamples();
  });
  after(() => stack?.close());

  async function upload(index: number, filename = samples[index].name): Promise<string> {
    const reply = await call(stack.url, 'POST', `/v1/assets?filename=${encodeURIComponent(filename)}`, {
      key: sender.key,
      raw: samples[index].bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(reply.status, 201, reply.text);
    return reply.body.drive_file_id;
  }

  /** A package made and offered by the sender's agent; answers the offer (with each recipient's token, once). */
  async function offered(body: Record<string, unknown>) {
    const created = await call(stack.url, 'POST', '/v1/transfers', { key: sender.key, body });
    assert.equal(created.status, 201, created.text);
    const offer = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: sender.key,
      body: { confirm: true },
    });
    assert.equal(offer.status, 200, offer.text);
    return offer.body as { transfer_id: string; recipients: Array<{ token: string; claim_url: string; email: string }> };
  }

  const recipient = (name: string) => ({ name, email: `${name.toLowerCase().replace(/\W/g, '')}-${Date.now()}@example.test` });
  const claimPath = (token: string) => `${appPath}/claim/${token}`;
  const local = (url: string) => url.replace(stack.config.publicUrl, stack.url);

  /** A guest's request: no cookie, the Origin a browser on the app's page sends unless told otherwise. */
  function guest(
    method: 'GET' | 'POST',
    path: string,
    origin: string | null = new URL(stack.config.appUrl).origin,
    more: Record<string, string> = {},
  ) {
    const headers: Record<string, string> = method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded', ...more } : more;
    if (method === 'POST' && origin) headers.origin = origin;
    return fetch(`${stack.url}${path}`, { method, headers, body: method === 'POST' ? '' : undefined, redirect: 'manual' });
  }

  async function pageOf(token: string): Promise<{ status: number; html: string; headers: Headers }> {
    const response = await guest('GET', claimPath(token));
    return { status: response.status, html: await response.text(), headers: response.headers };
  }

  const transferOf = async (id: string) => (await call(stack.url, 'GET', `/v1/transfers/${id}`, { key: sender.key })).body;

  it('share: shows the sender, the files (kind, size, SHA-256) and one Download per file; a Download answers 303 to the file', async () => {
    const files = [samples[0], samples[4]];
    const rita = recipient('Rita');
    const offer = await offered({ name: 'Quarterly pack', drive_file_ids: [await upload(0), await upload(4)], recipients: [rita] });
    const { token, claim_url } = offer.recipients[0];
    assert.equal(new URL(claim_url).pathname, claimPath(token));

    const page = await pageOf(token);
    assert.equal(page.status, 200, page.html);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.ok(page.html.includes('<title>Quarterly pack · Agents</title>'));
    assert.ok(page.html.includes(`Sam Sender (${sender.email})`));
    assert.match(page.html, /Shared with you: the files can be downloaded/);
    assert.match(page.html, /Ready to download/);
    for (const file of files) {
      assert.ok(page.html.includes(file.name), file.name);
      assert.ok(page.html.includes(sha256(file.bytes)), `${file.name}: its SHA-256`);
    }
    assert.match(page.html, /<td data-label="Kind">pdf<\/td>/);
    assert.match(page.html, /<td data-label="Kind">zip<\/td>/);
    assert.match(page.html, /<td data-label="Size"><span title="\d+ bytes">\d+(\.\d)? KB<\/span><\/td>/);
    assert.equal(page.html.split('data-testid="claim-download"').length - 1, 2, 'one Download per file');
    assert.ok(!page.html.includes('/files/transfers/'), 'the page holds no file URL');
    assert.ok(!new RegExp(['esc', 'row'].join(''), 'i').test(page.html), 'the word SPEC Guarantee 7 forbids is absent');
    assert.equal((page.html.match(/claim-accept/g) ?? []).length, 0, 'nothing to accept in share mode');

    for (const [index, file] of files.entries()) {
      const download = await guest('POST', `${claimPath(token)}/download/${index}`);
      assert.equal(download.status, 303);
      assert.equal(download.headers.get('referrer-policy'), 'no-referrer');
      const location = download.headers.get('location') ?? '';
      assert.ok(location.startsWith(`${stack.config.publicUrl}/files/transfers/`), location);
      const served = await fetch(local(location));
      assert.equal(served.status, 200);
      const bytes = Buffer.from(await served.arrayBuffer());
      assert.equal(sha256(bytes), sha256(file.bytes));
      assert.equal(served.headers.get('x-content-sha256'), sha256(file.bytes));
    }
    const beyond = await guest('POST', `${claimPath(token)}/download/2`);
    assert.equal(beyond.status, 404);
    assert.match(await beyond.text(), /No such file in this package/);
  });

  it('lets a Download’s redirect leave for SVC_PUBLIC_URL when the app has another origin (CSP form-action)', async () => {
    const offer = await offered({ name: 'Elsewhere', drive_file_ids: [await upload(1)], recipients: [recipient('Eli')] });
    const here = await pageOf(offer.recipients[0].token);
    assert.match(here.headers.get('content-security-policy') ?? '', /form-action 'self'$/);
    const apart = await stack.withEnv({ SVC_APP_URL: 'https://app.example.test/app' });
    try {
      const page = await fetch(`${apart.url}/app/claim/${offer.recipients[0].token}`);
      assert.equal(page.status, 200);
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.ok(csp.endsWith(`form-action 'self' ${new URL(stack.config.publicUrl).origin}`), csp);
    } finally {
      await apart.close();
    }
  });

  it('accept: each recipient’s Accept counts them in; the second one releases the files', async () => {
    const [ann, bob] = [recipient('Ann'), recipient('Bob')];
    const offer = await offered({
      name: 'Accept pack',
      drive_file_ids: [await upload(2)],
      recipients: [ann, bob],
      requires_acceptance: true,
    });
    const [annToken, bobToken] = offer.recipients.map((r) => r.token);

    const waiting = await pageOf(annToken);
    assert.match(waiting.html, /The files unlock when every recipient has accepted them/);
    assert.match(waiting.html, /0 of 2 recipients/);
    assert.match(waiting.html, /Waiting/);
    assert.ok(waiting.html.includes('data-testid="claim-accept"'));
    assert.ok(!waiting.html.includes('data-testid="claim-download"'), 'no Download before release');
    const early = await guest('POST', `${claimPath(annToken)}/download/0`);
    assert.equal(early.status, 409);
    assert.equal(early.headers.get('location'), null);
    assert.match(await early.text(), /cannot be downloaded/);

    const first = await guest('POST', `${claimPath(annToken)}/accept`);
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), `${claimPath(annToken)}?done=accepted`);
    const afterFirst = await (await guest('GET', `${claimPath(annToken)}?done=accepted`)).text();
    assert.match(afterFirst, /You accepted the files/);
    assert.match(afterFirst, /1 of 2 recipients/);
    assert.ok(afterFirst.includes('data-testid="claim-you-accepted"'));
    assert.ok(!afterFirst.includes('data-testid="claim-accept"'), 'accepted once: no button any more');
    assert.equal((await transferOf(offer.transfer_id)).status, 'offered');

    const second = await guest('POST', `${claimPath(bobToken)}/accept`);
    assert.equal(second.status, 302);
    const released = await transferOf(offer.transfer_id);
    assert.equal(released.status, 'released');
    assert.equal(released.can_release, true);
    const ready = await pageOf(bobToken);
    assert.match(ready.html, /2 of 2 recipients/);
    assert.match(ready.html, /Ready to download/);
    assert.ok(ready.html.includes('data-testid="claim-download"'));
  });

  it('sign-to-unlock: waits for its document, and shows it blocked, with the reason, once the document is declined', async () => {
    const { nda } = await seedSamples(stack, sender);
    const [dee, eve] = [recipient('Dee'), recipient('Eve')];
    const document = await createDocument(stack, sender, { template_id: nda.id, name: 'Doomed NDA', send: true, signers: [dee, eve] });
    assert.equal(document.status, 201, document.text);
    const offer = await offered({
      name: 'Signed pack',
      drive_file_ids: [await upload(6)],
      recipients: [recipient('Una')],
      document_id: document.body.document_id,
    });
    const { token } = offer.recipients[0];
    const waiting = await pageOf(token);
    assert.match(waiting.html, /The files unlock when the document “Doomed NDA” is signed by everyone\./);
    assert.match(waiting.html, /Waiting<\/span> Not every signer has signed the document yet\./);
    assert.ok(!waiting.html.includes('data-testid="claim-download"'));
    assert.ok(!waiting.html.includes('data-testid="claim-accept"'));

    const session = await new SignerSession(stack, document.body.signers[0].sign_url, dee.email).verify();
    assert.equal((await session.request('POST', '/decline', { reason: 'No.' })).status, 200);
    const blocked = await waitFor('the page to say blocked', async () => {
      const page = await pageOf(token);
      return /Blocked/.test(page.html) ? page : undefined;
    });
    assert.equal(blocked.status, 200);
    assert.match(blocked.html, /The linked document was declined; the files will not be released\./);
    assert.ok(!blocked.html.includes('data-testid="claim-download"'));
    const refused = await guest('POST', `${claimPath(token)}/download/0`);
    assert.equal(refused.status, 409);
    assert.match(await refused.text(), /The linked document was declined/);
  });

  it('refuses a guest form from another origin (400) and changes nothing; the page’s own post is taken', async () => {
    const offer = await offered({
      name: 'Guarded',
      drive_file_ids: [await upload(1)],
      recipients: [recipient('Gia')],
      requires_acceptance: true,
    });
    const { token } = offer.recipients[0];
    // `Origin: null` is what a browser sends from a no-referrer page: from another site (a sandboxed
    // frame) its Sec-Fetch-Site says so, or says nothing outside a secure context.
    const hostile: Array<[string, Record<string, string>]> = [
      ['https://evil.example', {}],
      ['https://evil.example', { 'sec-fetch-site': 'cross-site' }],
      ['null', { 'sec-fetch-site': 'cross-site' }],
      ['null', { 'sec-fetch-site': 'same-site' }],
      ['null', {}],
    ];
    for (const [origin, headers] of hostile) {
      const refused = await guest('POST', `${claimPath(token)}/accept`, origin, headers);
      assert.equal(refused.status, 400, `${origin} ${JSON.stringify(headers)}`);
      assert.equal(refused.headers.get('location'), null);
      assert.match(await refused.text(), /did not come from this app/);
    }
    const row = await TransferRecipient.query(stack.deps.db).findOne({ transfer_id: offer.transfer_id });
    assert.equal(row?.accepted_at, null, 'not accepted');
    assert.equal((await transferOf(offer.transfer_id)).recipients[0].accepted, false);
    // The page's own post, as Chromium sends it under Referrer-Policy no-referrer, is taken.
    const own = await guest('POST', `${claimPath(token)}/accept`, 'null', { 'sec-fetch-site': 'same-origin' });
    assert.equal(own.status, 302);
    assert.equal((await transferOf(offer.transfer_id)).status, 'released');

    const share = await offered({ name: 'Guarded share', drive_file_ids: [await upload(1)], recipients: [recipient('Gil')] });
    const download = await guest('POST', `${claimPath(share.recipients[0].token)}/download/0`, 'https://evil.example');
    assert.equal(download.status, 400);
    assert.equal(download.headers.get('location'), null, 'no download link minted');
  });

  it('answers one and the same 404 page for a token that never existed, a cancelled one and a malformed one', async () => {
    const offer = await offered({
      name: 'Soon cancelled',
      drive_file_ids: [await upload(3)],
      recipients: [recipient('Cal')],
      requires_acceptance: true,
    });
    const { token } = offer.recipients[0];
    assert.equal((await pageOf(token)).status, 200);
    const cancelled = await call(stack.url, 'POST', `/v1/transfers/${offer.transfer_id}/cancel`, { key: sender.key });
    assert.equal(cancelled.status, 200, cancelled.text);

    const never = await pageOf(`svcxfer_${'A'.repeat(32)}`);
    assert.equal(never.status, 404);
    assert.match(never.html, /This link is not valid \(or the transfer was cancelled\)/);
    assert.equal(never.headers.get('referrer-policy'), 'no-referrer');
    assert.ok(!never.html.includes('Soon cancelled'));
    for (const other of [token, 'svcxfer_short', 'nonsense']) {
      const page = await pageOf(other);
      assert.equal(page.status, 404, other);
      assert.equal(page.html, never.html, `${other}: the same page`);
    }
    for (const action of ['accept', 'download/0']) {
      const posted = await guest('POST', `${claimPath(token)}/${action}`);
      assert.equal(posted.status, 404, action);
      assert.equal(await posted.text(), never.html, `${action}: the same page`);
    }
  });

  it('renders a hostile package name and file name as text', async () => {
    const file = await upload(0, `<img src=x onerror="alert(3)">.pdf`);
    const offer = await offered({ name: HOSTILE, drive_file_ids: [file], recipients: [recipient('Hal')] });
    const { html } = await pageOf(offer.recipients[0].token);
    assert.ok(!html.includes('<script>alert'), 'no script tag came through');
    assert.ok(!/onmouseover\s*=\s*"/.test(html), 'no event handler came through');
    assert.ok(!html.includes('<img src=x'), 'no image came through');
    assert.ok(html.split(ESCAPED).length - 1 >= 2, 'the name is shown escaped (title and heading)');
    assert.ok(html.includes('&lt;img src=x onerror=&quot;alert(3)&quot;&gt;.pdf'));
  });

  it('binds the claim to the signed-in principal whose e-mail it was sent to; another session is refused', async () => {
    const bea = await createAccount(stack.deps.db, { name: 'Bea Bound' });
    const offer = await offered({ name: 'Bind me', drive_file_ids: [await upload(5)], recipients: [{ email: bea.email, name: 'Bea' }] });
    const { token } = offer.recipients[0];
    const path = claimPath(token);
    const bound = async () =>
      (await TransferRecipient.query(stack.deps.db).findOne({ transfer_id: offer.transfer_id }))!.bound_principal_id;

    // A guest is offered to sign in, not to bind; a bind without a session is refused.
    const asGuest = (await pageOf(token)).html;
    assert.ok(asGuest.includes('data-testid="claim-sign-in"'));
    assert.ok(!asGuest.includes('data-testid="claim-bind"'));
    assert.equal((await guest('POST', `${path}/bind`)).status, 401);

    // Another principal's session: the page works for them too, offers no bind, and a bind is refused.
    const other = await new AppClient(stack, sender.email).login();
    const theirs = await other.get(path);
    assert.equal(theirs.status, 200);
    const theirsHtml = await theirs.text();
    assert.ok(theirsHtml.includes('data-testid="logout"'), 'the signed-in page has the navigation');
    assert.ok(!theirsHtml.includes('data-testid="claim-bind"'));
    assert.ok(theirsHtml.includes('data-testid="claim-other-account"'));
    const refused = await other.post(`${path}/bind`, {}, path);
    assert.equal(refused.status, 404);
    assert.equal(await bound(), null, 'not bound');

    // The recipient, signed in: Add to my account binds it (the form needs the session's token).
    const app = await new AppClient(stack, bea.email).login();
    const mine = await (await app.get(path)).text();
    assert.ok(mine.includes('data-testid="claim-bind"'));
    assert.equal((await app.post(`${path}/bind`, { _csrf: 'forged' })).status, 400);
    assert.equal(await bound(), null);
    const done = await app.post(`${path}/bind`, {}, path);
    assert.equal(done.status, 302);
    assert.equal(done.headers.get('location'), `${path}?done=bound`);
    assert.equal(await bound(), bea.principalId);
    const after = await (await app.get(`${path}?done=bound`)).text();
    assert.match(after, /The package is in your account now/);
    assert.ok(after.includes('data-testid="claim-bound"'));
    assert.ok(!after.includes('data-testid="claim-bind"'));
    const downloads = await call(stack.url, 'POST', `/v1/transfers/${offer.transfer_id}/downloads`, { key: bea.key });
    assert.equal(downloads.status, 200, downloads.text);
  });
});
