import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stopUrl } from '../../activities/accounts/stop';
import { ApiKey, Mandate } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { outsideCatalogue, PSEUDO_HEADERS, pageOutsideCatalogue } from '../../test/catalogue';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { call } from '../../test/http';
import { AppClient, mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { type CompletedPdf, completedPdf, tampered } from '../../test/verify';
import { waitFor } from '../../test/wait';

// The pages people reach by a link in a mail, or open without signing in (issue 38, item 2): the
// claim page of a transfer, the "Stop this agent" page and the verify page, rendered by the real
// stack in the pseudo-locale, in each state that shows different text: nothing a person reads on
// them may come from outside the catalogue but the test's own data.

let stack: Stack;
let sender: Account;
let appPath: string;
let samples: Awaited<ReturnType<typeof driveSamples>>;
let completed: CompletedPdf;

before(async () => {
  stack = await startStack();
  sender = await createAccount(stack.deps.db, { name: 'Sam Sender' });
  appPath = new URL(stack.config.appUrl).pathname.replace(/\/$/, '');
  samples = await driveSamples();
});
after(() => stack?.close());

const origin = () => new URL(stack.config.appUrl).origin;

/** A page in the pseudo-locale (with a session's cookie when given), and what of it is outside the catalogue. */
async function outside(path: string, data: string[], status = 200, cookie?: string, init: RequestInit = {}): Promise<string[]> {
  const headers = { ...PSEUDO_HEADERS, ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) };
  const response = await fetch(`${stack.url}${path}`, { redirect: 'manual', ...init, headers });
  const html = await response.text();
  assert.equal(response.status, status, html);
  assert.match(html, /⟦/, 'the page is in the pseudo-locale');
  return pageOutsideCatalogue(html, data);
}

const guestPost = (path: string, from = origin()) =>
  fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: from },
    body: '',
    redirect: 'manual',
  });

describe('the claim page in the pseudo-locale', () => {
  const recipient = (name: string) => ({ name, email: `${name.toLowerCase()}-${Date.now()}@example.test` });
  // A file's kind (pdf, png …) is a value the service shows, as its name is.
  const data = (...more: string[]) => ['Sam Sender', ...samples.flatMap((file) => [file.name, file.kind]), ...more];

  async function upload(index: number): Promise<string> {
    const reply = await call(stack.url, 'POST', `/v1/assets?filename=${encodeURIComponent(samples[index].name)}`, {
      key: sender.key,
      raw: samples[index].bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(reply.status, 201, reply.text);
    return reply.body.drive_file_id;
  }

  async function offered(body: Record<string, unknown>): Promise<string[]> {
    const created = await call(stack.url, 'POST', '/v1/transfers', { key: sender.key, body });
    assert.equal(created.status, 201, created.text);
    const offer = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: sender.key,
      body: { confirm: true },
    });
    assert.equal(offer.status, 200, offer.text);
    return offer.body.recipients.map((r: { token: string }) => `${appPath}/claim/${r.token}`);
  }

  it('a link that opens nothing', async () => {
    assert.deepEqual(await outside(`${appPath}/claim/nothing-here`, data(), 404), []);
  });

  it('a share, ready to download (1 byte to megabytes), and a refused download', async () => {
    const [path] = await offered({
      name: 'Quarterly pack',
      drive_file_ids: [await upload(0), await upload(1)],
      recipients: [recipient('Rita')],
    });
    assert.deepEqual(await outside(path, data('Quarterly pack', 'Rita')), []);
    assert.equal((await guestPost(`${path}/download/7`)).status, 404);
    const missing = await fetch(`${stack.url}${path}/download/7`, {
      method: 'POST',
      headers: { ...PSEUDO_HEADERS, 'content-type': 'application/x-www-form-urlencoded', origin: origin() },
      redirect: 'manual',
    });
    assert.equal(missing.status, 404);
    assert.deepEqual(pageOutsideCatalogue(await missing.text(), data('Quarterly pack', 'Rita')), [], 'no such file');
    const foreign = await outside(`${path}/accept`, data('Quarterly pack', 'Rita'), 400, undefined, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    assert.deepEqual(foreign, [], 'a form from elsewhere');
  });

  it('accept: waiting with its button, accepted by one, ready', async () => {
    const [ann, bob] = [recipient('Ann'), recipient('Bob')];
    const [annPath, bobPath] = await offered({
      name: 'Accept pack',
      drive_file_ids: [await upload(2)],
      recipients: [ann, bob],
      requires_acceptance: true,
    });
    const names = data('Accept pack', 'Ann', 'Bob');
    assert.deepEqual(await outside(annPath, names), [], 'waiting, 0 of 2');
    assert.equal((await guestPost(`${annPath}/accept`)).status, 302);
    assert.deepEqual(await outside(`${annPath}?done=accepted`, names), [], 'accepted by this one');
    assert.equal((await guestPost(`${bobPath}/accept`)).status, 302);
    assert.deepEqual(await outside(bobPath, names), [], 'released');
  });

  it('sign-to-unlock: waiting for its document, then blocked', async () => {
    const { nda } = await seedSamples(stack, sender);
    const [dee, eve] = [recipient('Dee'), recipient('Eve')];
    const document = await createDocument(stack, sender, { template_id: nda.id, name: 'Doomed NDA', send: true, signers: [dee, eve] });
    assert.equal(document.status, 201, document.text);
    const [path] = await offered({
      name: 'Signed pack',
      drive_file_ids: [await upload(6)],
      recipients: [recipient('Una')],
      document_id: document.body.document_id,
    });
    const names = data('Signed pack', 'Doomed NDA', 'Una');
    assert.deepEqual(await outside(path, names), [], 'waiting for the signers');
    const session = await new SignerSession(stack, document.body.signers[0].sign_url, dee.email).verify();
    assert.equal((await session.request('POST', '/decline', { reason: 'No.' })).status, 200);
    await waitFor('the transfer to be blocked', async () => /Blocked/.test(await (await fetch(`${stack.url}${path}`)).text()) || undefined);
    assert.deepEqual(await outside(path, names), [], 'blocked');
    const refused = await outside(`${path}/download/0`, names, 409, undefined, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin() },
      body: '',
    });
    assert.deepEqual(refused, [], 'a download refused while blocked');
  });

  it('signed in: as the recipient (bind, then bound) and as someone else', async () => {
    const bea = await createAccount(stack.deps.db, { name: 'Bea Bound' });
    const [path] = await offered({ name: 'Bind me', drive_file_ids: [await upload(5)], recipients: [{ email: bea.email, name: 'Bea' }] });
    const names = data('Bind me', 'Bea Bound', 'Bea');
    assert.deepEqual(await outside(path, names), [], 'a guest, offered to sign in');
    const other = await new AppClient(stack, sender.email).login();
    assert.deepEqual(await outside(path, names, 200, other.cookie), [], 'another account');
    const app = await new AppClient(stack, bea.email).login();
    assert.deepEqual(await outside(path, names, 200, app.cookie), [], 'the recipient, before binding');
    assert.equal((await app.post(`${path}/bind`, {}, path)).status, 302);
    assert.deepEqual(await outside(`${path}?done=bound`, names, 200, app.cookie), [], 'bound');
  });
});

describe('the stop page in the pseudo-locale', () => {
  const press = (path: string, what: string, from = origin()) =>
    fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: from },
      body: new URLSearchParams({ what, _csrf: '' }).toString(),
      redirect: 'manual',
    });

  it('an active mandate, after stopping it, after stopping its key; a forged link; a refused form', async () => {
    const { principal, mandate } = await mandatedAccount(stack, { name: 'Stella Stopper', label: 'runaway agent' });
    const path = new URL(stopUrl(stack.config.appUrl, stack.deps.secret, mandate.id)).pathname;
    // The mandate's name, its key's label and prefix and the level's code (L2) are values the page shows.
    const key = await ApiKey.query(stack.deps.db).findById(mandate.api_key_id);
    const data = [principal.name, mandate.name, 'runaway agent', `${key!.prefix}…`, 'L2'];
    assert.deepEqual(await outside(path, data), [], 'active');
    assert.deepEqual(
      await outside(path, data, 400, undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: 'what=key',
      }),
      [],
      'a form from elsewhere',
    );
    assert.deepEqual(
      await outside(path, data, 400, undefined, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin() },
        body: 'what=both',
      }),
      [],
      'nothing chosen',
    );
    assert.equal((await press(path, 'mandate')).status, 302);
    assert.deepEqual(await outside(`${path}?done=mandate`, data), [], 'the mandate stopped');
    assert.equal((await press(path, 'key')).status, 302);
    assert.deepEqual(await outside(`${path}?done=key`, data), [], 'the key stopped: nothing left');
    assert.deepEqual(await outside(`${appPath}/stop/mdt_forged.forged`, data, 404), [], 'forged');
  });

  it('an expired mandate’s link', async () => {
    const { principal, mandate } = await mandatedAccount(stack, { name: 'Exa Expired', label: 'old agent', level: 'L1' });
    await Mandate.query(stack.deps.db)
      .findById(mandate.id)
      .patch({ expires_at: new Date(Date.now() - 1000) });
    const path = new URL(stopUrl(stack.config.appUrl, stack.deps.secret, mandate.id)).pathname;
    const key = await ApiKey.query(stack.deps.db).findById(mandate.api_key_id);
    assert.deepEqual(await outside(path, [principal.name, mandate.name, 'old agent', `${key!.prefix}…`, 'L1'], 410), []);
  });
});

describe('the verify page in the pseudo-locale', () => {
  before(async () => {
    completed = await completedPdf(stack, 'Verified NDA');
  });

  async function upload(file: { name: string; bytes: Uint8Array } | undefined, status: number, data: string[]): Promise<string[]> {
    const form = new FormData();
    if (file) form.append('pdf', new Blob([file.bytes], { type: 'application/pdf' }), file.name);
    return outside(`${appPath}/verify`, data, status, undefined, { method: 'POST', body: form, headers: { origin: origin() } });
  }

  // Values, not words: who signed, the file's name, the PAdES levels (B-LT …), the names of the certificates
  // (signers and chain anchors, CN=…) and of the PDF's signature fields (as the file names them).
  const CERTIFICATES = [
    'CN=Document seal (development), O=E-signature service',
    'CN=Timestamp authority (development), O=E-signature service',
  ];
  const FIELDS = ['Seal', 'Archive timestamp'];
  const data = () => [
    ...completed.signers.map((s) => s.name),
    ...CERTIFICATES,
    ...FIELDS,
    completed.mandate.id,
    'signed NDA.pdf',
    'changed NDA.pdf',
    'L2',
    'B-B',
    'B-T',
    'B-LT',
    'B-LTA',
  ];

  it('the form, for a guest and for a principal', async () => {
    assert.deepEqual(await outside(`${appPath}/verify`, data()), []);
    const app = await new AppClient(stack, sender.email).login();
    assert.deepEqual(await outside(`${appPath}/verify`, ['Sam Sender'], 200, app.cookie), []);
  });

  it('a valid PDF the service issued, a changed one, none chosen, one it did not issue', async () => {
    assert.deepEqual(await upload({ name: 'signed NDA.pdf', bytes: completed.pdf }, 200, data()), [], 'valid');
    const changed = tampered(completed.pdf);
    // The verifier's reasons ("Signature 1 (certification, field …): the signed bytes changed …") are worded on the
    // PDF thread in the request's locale, from the catalogue (lib/i18n/en/verify.json); only the ETSI sub-indications
    // (HASH_FAILURE …), codes rather than words, are data, as POST /v1/verify reports them.
    const report = await call(stack.url, 'POST', '/v1/verify', { raw: changed, headers: { 'content-type': 'application/pdf' } });
    assert.equal(report.status, 200, report.text);
    const codes = report.body.signatures.map((signature: { sub_indication: string | null }) => signature.sub_indication ?? '');
    assert.deepEqual(await upload({ name: 'changed NDA.pdf', bytes: changed }, 200, [...data(), ...codes]), [], 'changed');
    assert.deepEqual(await upload(undefined, 400, data()), [], 'no file');
    // A PDF it did not issue, with no signature.
    const unsigned = Buffer.from((await buildSampleNda()).pdf);
    assert.deepEqual(await upload({ name: 'changed NDA.pdf', bytes: unsigned }, 200, data()), [], 'not issued here');
  });
});

describe('download links and static files in the pseudo-locale', () => {
  it('a download link that is wrong or expired, and a static file that does not exist, say so in catalogue words', async () => {
    for (const path of ['/files/documents/doc_nosuchdocument0000.pdf?token=forged', '/files/transfers/forged']) {
      const reply = await call(stack.url, 'GET', path, { headers: PSEUDO_HEADERS });
      assert.equal(reply.status, 410, reply.text);
      assert.match(reply.body.error.message, /⟦/);
      assert.deepEqual(outsideCatalogue(reply.body.error.message), [], path);
    }
    const missing = await fetch(`${stack.url}/static/no-such-file.js`, { headers: PSEUDO_HEADERS });
    assert.equal(missing.status, 404);
    assert.deepEqual(outsideCatalogue(await missing.text()), []);
  });
});
