import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Contact } from '../../db/models';
import { SDK_INPUTS, SDK_TYPES, sdkInputsSource, sdkTypesSource } from '../../runtime/sdk-types';
import { seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { completedPdf, tampered } from '../../test/verify';
import { SvcClient, SvcError, VERSION } from './src/index';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the TypeScript SDK against the running service', () => {
  let stack: Stack;
  let account: Account;
  let client: SvcClient;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '30000' } });
    ({ account } = await mandatedAccount(stack, { level: 'L2', name: 'Sid Sdk' }));
    client = new SvcClient({ baseUrl: stack.url, apiKey: account.key, retry: { initialDelayMs: 10, maxDelayMs: 50 } });
  });
  after(() => stack.close());

  it('is version 0.3.0, and its types are the ones the service’s OpenAPI document gives (npm run generate:sdk)', async () => {
    assert.equal(VERSION, '0.3.0');
    assert.equal(
      fs.readFileSync(SDK_TYPES, 'utf8'),
      await sdkTypesSource(),
      'clients/sdk/src/openapi.ts is stale: run npm run generate:sdk',
    );
    assert.equal(
      fs.readFileSync(SDK_INPUTS, 'utf8'),
      await sdkInputsSource(),
      'clients/sdk/src/inputs.ts is stale: run npm run generate:sdk',
    );
  });

  it('calls the API with the key: me, templates, documents, and L2 signing (signAsPrincipal)', async () => {
    const me = await client.me();
    assert.equal(me.plan, 'business');
    const { nda } = await seedSamples(stack, account);
    assert.ok((await client.listTemplates()).data.some((template) => template.template_id === nda.id));
    const principal = await principalOf(stack, account);
    const document = await client.createDocument({
      template_id: nda.id,
      name: 'SDK NDA',
      signers: [
        { name: principal.name, email: principal.email },
        { name: 'Other', email: 'other-sdk@example.test' },
      ],
      send: true,
    });
    assert.equal(document.status, 'sent');
    const signed = await client.signAsPrincipal(document.document_id, 'agreed by the SDK');
    assert.equal(signed.status, 'applied');
    assert.equal((await client.getDocument(document.document_id)).signers[0].status, 'signed');
  });

  it('throws one typed error with SPEC’s code, status and docs_url', async () => {
    await assert.rejects(client.getDocument('doc_nothere'), (error: unknown) => {
      assert.ok(error instanceof SvcError);
      assert.equal(error.code, 'not_found');
      assert.equal(error.status, 404);
      assert.ok(error.docsUrl?.endsWith('#not_found'));
      return true;
    });
    const free = new SvcClient({ baseUrl: `${stack.url}/v1`, apiKey: 'svc_notakey' });
    await assert.rejects(free.me(), (error: unknown) => error instanceof SvcError && error.code === 'unauthorized' && error.status === 401);
  });

  it('pages through a list with an async iterator', async () => {
    const { nda } = await seedSamples(stack, account);
    for (let i = 0; i < 5; i += 1)
      await client.createDocument({ template_id: nda.id, name: `Paged ${i}`, signers: [{ name: 'A', email: `a${i}@example.test` }] });
    const seen: string[] = [];
    for await (const document of client.iterateDocuments({ limit: 2 })) seen.push(document.document_id);
    const all = (await client.listDocuments({ limit: 100 })).data.map((document) => document.document_id);
    assert.deepEqual(seen, all);
    assert.ok(seen.length >= 6);
  });

  it('retries a POST whose answer was lost with the same Idempotency-Key: the work is done once', async () => {
    let attempts = 0;
    const keys: string[] = [];
    const lossy: typeof fetch = async (input, init) => {
      attempts += 1;
      keys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
      const response = await fetch(input, init);
      // The first answer is lost on the way back, as on a dropped connection.
      if (attempts === 1) throw new TypeError('fetch failed: socket hang up');
      return response;
    };
    const flaky = new SvcClient({ baseUrl: stack.url, apiKey: account.key, fetch: lossy, retry: { initialDelayMs: 5, maxDelayMs: 10 } });
    const email = `lost-${Date.now()}@example.test`;
    const contact = await flaky.inviteContact({ email, name: 'Lost Answer' });
    assert.equal(attempts, 2);
    assert.equal(keys[0], keys[1], 'one Idempotency-Key for both attempts');
    assert.match(keys[0], /^[0-9a-f-]{36}$/);
    assert.equal(contact.counterparty_email, email);
    assert.equal(
      await Contact.query(stack.deps.db).where({ principal_id: account.principalId, counterparty_email: email }).resultSize(),
      1,
    );
  });

  it('retries 429 after its Retry-After and 5xx with backoff; gives up with the last error', async () => {
    const answers = [
      new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down', docs_url: 'x#rate_limited' } }), {
        status: 429,
        headers: { 'retry-after': '0' },
      }),
      new Response('bad gateway', { status: 502 }),
    ];
    let calls = 0;
    const scripted: typeof fetch = async (input, init) => {
      calls += 1;
      return answers.shift() ?? fetch(input, init);
    };
    const patient = new SvcClient({
      baseUrl: stack.url,
      apiKey: account.key,
      fetch: scripted,
      retry: { initialDelayMs: 5, maxDelayMs: 10 },
    });
    assert.equal((await patient.me()).plan, 'business');
    assert.equal(calls, 3);
    // A refusal that asks to wait longer than a minute (a remind's interval, the L2 daily cap) is thrown at once.
    const hourly: typeof fetch = async () => {
      calls += 1;
      return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'reminded', docs_url: 'x#rate_limited' } }), {
        status: 429,
        headers: { 'retry-after': '3600' },
      });
    };
    calls = 0;
    // Waiting the hour would outlast the test: the rejection itself shows the client did not.
    await assert.rejects(
      new SvcClient({ baseUrl: stack.url, apiKey: account.key, fetch: hourly }).me(),
      (error: unknown) => error instanceof SvcError && error.code === 'rate_limited' && error.retryAfter === 3600,
    );
    assert.equal(calls, 1);
    const down = new SvcClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: account.key,
      retry: { retries: 2, initialDelayMs: 5, maxDelayMs: 10 },
    });
    await assert.rejects(down.me(), (error: unknown) => error instanceof SvcError && error.code === 'network_error' && error.status === 0);
  });

  it('uploads a file from disk (uploadAsset), makes and offers a package, and downloads it into a folder checking SHA-256', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sdk-'));
    const sample = (await driveSamples())[4];
    const file = path.join(folder, sample.name);
    fs.writeFileSync(file, sample.bytes);
    const progress: number[] = [];
    const uploaded = await client.uploadAsset({ path: file, onProgress: (done) => progress.push(done) });
    assert.equal(uploaded.sha256, sha256(sample.bytes));
    assert.equal(progress.at(-1), sample.bytes.length);
    const transfer = await client.createTransfer({
      name: 'SDK pack',
      drive_file_ids: [uploaded.drive_file_id],
      recipients: [{ email: 'rx@example.test', name: 'Rx' }],
    });
    const offered = await client.offerTransfer(transfer.transfer_id, true);
    const token = offered.recipients[0].token;
    const guest = new SvcClient({ baseUrl: stack.url });
    assert.equal((await guest.getPublicTransfer(token)).can_release, true);
    // The download URLs carry SVC_PUBLIC_URL's host; this test serves on another port, so its fetch maps them.
    const mapped: typeof fetch = (input, init) => fetch(String(input).replace(stack.config.publicUrl, stack.url), init);
    const downloader = new SvcClient({ baseUrl: stack.url, fetch: mapped });
    const saved = await downloader.downloadTransfer(token, path.join(folder, 'out'));
    assert.equal(saved.length, 1);
    assert.equal(sha256(fs.readFileSync(saved[0].path)), sha256(sample.bytes));
    const byId = await new SvcClient({ baseUrl: stack.url, apiKey: account.key, fetch: mapped }).downloadTransfer(
      { transfer_id: transfer.transfer_id },
      path.join(folder, 'by-id'),
    );
    assert.equal(byId[0].sha256, sha256(sample.bytes));
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('needs no key for the public claim calls and sends none', async () => {
    const stranger = await createAccount(stack.deps.db);
    const guest = new SvcClient({ baseUrl: stack.url, apiKey: stranger.key });
    await assert.rejects(
      guest.getPublicTransfer(`svcxfer_${'B'.repeat(32)}`),
      (error: unknown) => error instanceof SvcError && error.code === 'not_found',
    );
  });

  it('verifyPdf checks a PDF with no key (and sends none, nor an Idempotency-Key); a refusal is a typed error', async () => {
    const completed = await completedPdf(stack);
    const sent: Headers[] = [];
    const watching: typeof fetch = (input, init) => {
      sent.push(new Headers(init?.headers));
      return fetch(input, init);
    };
    const keyless = new SvcClient({ baseUrl: stack.url, fetch: watching });
    const report = await keyless.verifyPdf(completed.pdf);
    assert.equal(report.valid, true, JSON.stringify(report.problems));
    assert.equal(report.issued_by_this_service, true);
    assert.equal(report.document_id, completed.documentId);
    assert.equal(report.completed, true);
    assert.equal(report.sha256, sha256(completed.pdf));
    assert.deepEqual(
      report.signers.map((signer) => [signer.email, signer.how, signer.mandate_id, signer.level]),
      [
        [completed.signers[0].email, 'l2', completed.mandate.id, 'L2'],
        [completed.signers[1].email, 'browser', null, null],
      ],
    );
    assert.deepEqual(
      report.signatures.map((signature) => [signature.kind, signature.valid]),
      [
        ['certification', true],
        ['timestamp', true],
      ],
    );
    assert.equal(sent[0].get('content-type'), 'application/pdf');
    assert.equal(sent[0].get('authorization'), null, 'a client without a key sends none');
    assert.equal(sent[0].get('idempotency-key'), null, 'verify changes nothing: no Idempotency-Key');

    const changed = await client.verifyPdf(tampered(completed.pdf));
    assert.equal(changed.valid, false);
    assert.equal(changed.issued_by_this_service, false);
    assert.deepEqual(changed.signers, []);
    assert.ok(changed.problems.length > 0);
    await assert.rejects(keyless.verifyPdf(Buffer.from('%PDF-1.7\nnot really')), (error: unknown) => {
      assert.ok(error instanceof SvcError);
      assert.equal(error.code, 'invalid_pdf');
      assert.equal(error.status, 422);
      return true;
    });
  });
});
