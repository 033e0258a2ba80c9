import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DriveFile } from '../../db/models';
import { downloadPdf } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples, executable } from '../../test/files';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { pdfsig } from '../../test/pdf-tools';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const LIMIT = 256 * 1024;

/** A raw upload: the file as the body, its name in `?filename=`. */
function uploadRaw(stack: Stack, key: string, bytes: Buffer, filename?: string, type = 'application/octet-stream'): Promise<Reply> {
  const query = filename ? `?filename=${encodeURIComponent(filename)}` : '';
  return call(stack.url, 'POST', `/v1/assets${query}`, { key, raw: bytes, headers: { 'content-type': type } });
}

/** A multipart/form-data upload with the file in the field `file` (and a text field before it). */
async function uploadMultipart(stack: Stack, key: string, bytes: Buffer, filename: string): Promise<Reply> {
  const form = new FormData();
  form.set('note', 'a field before the file');
  form.set('file', new Blob([bytes]), filename);
  const response = await fetch(`${stack.url}/v1/assets`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

describe('Drive: streamed uploads, kinds sniffed from the bytes', () => {
  let stack: Stack;
  let account: Account;
  let blobsDir: string;

  before(async () => {
    stack = await startStack({ env: { SVC_UPLOAD_LIMIT_BYTES: String(LIMIT), SVC_APPLY_WAIT_MS: '30000' } });
    account = await createAccount(stack.deps.db);
    blobsDir = path.join(stack.config.dataDir, 'blobs');
  });
  after(() => stack.close());

  /** No upload left anything half-written: the staging folder is empty. */
  const staged = () => fs.readdirSync(path.join(blobsDir, '.staging')).filter((name) => !name.startsWith('.'));
  const stored = (hash: string) => fs.existsSync(path.join(blobsDir, hash.slice(0, 2), hash));

  it('takes each allowed kind, raw or multipart: kind, size and SHA-256 as the bytes say; lists and shows them', async () => {
    const ids: string[] = [];
    for (const [index, sample] of (await driveSamples()).entries()) {
      const reply =
        index % 2 === 0
          ? await uploadRaw(stack, account.key, sample.bytes, sample.name)
          : await uploadMultipart(stack, account.key, sample.bytes, sample.name);
      assert.equal(reply.status, 201, `${sample.name}: ${reply.text}`);
      assert.match(reply.body.drive_file_id, /^drv_/);
      assert.equal(reply.body.name, sample.name);
      assert.equal(reply.body.kind, sample.kind, sample.name);
      assert.equal(reply.body.size, sample.bytes.length);
      assert.equal(reply.body.sha256, sha256(sample.bytes));
      assert.ok(stored(reply.body.sha256), 'the bytes are stored under their SHA-256');
      ids.push(reply.body.drive_file_id);
    }
    const listed = await call(stack.url, 'GET', '/v1/drive?limit=100', { key: account.key });
    assert.deepEqual(
      listed.body.data.map((file: { drive_file_id: string }) => file.drive_file_id),
      [...ids].reverse(),
    );
    const one = await call(stack.url, 'GET', `/v1/drive/${ids[0]}`, { key: account.key });
    assert.equal(one.body.kind, 'pdf');
    const stranger = await createAccount(stack.deps.db);
    assertErrorCode(await call(stack.url, 'GET', `/v1/drive/${ids[0]}`, { key: stranger.key }), 404, 'not_found');
    assert.deepEqual((await call(stack.url, 'GET', '/v1/drive', { key: stranger.key })).body.data, []);
    assert.deepEqual(staged(), []);
  });

  it('refuses what is none of those kinds with 415, whatever its name or Content-Type says, keeping nothing', async () => {
    const exe = executable();
    assertErrorCode(await uploadRaw(stack, account.key, exe, 'invoice.pdf', 'application/pdf'), 415, 'unsupported_media_type');
    assertErrorCode(await uploadMultipart(stack, account.key, exe, 'invoice.pdf'), 415, 'unsupported_media_type');
    assertErrorCode(await uploadRaw(stack, account.key, Buffer.from('just some text\n'), 'notes.txt'), 415, 'unsupported_media_type');
    assert.equal(stored(sha256(exe)), false, 'the refused bytes are not kept');
    assert.equal(
      await DriveFile.query(stack.deps.db)
        .where({ sha256: sha256(exe) })
        .resultSize(),
      0,
    );
    assertErrorCode(await uploadRaw(stack, account.key, Buffer.alloc(0), 'empty.pdf'), 400, 'invalid_request');
    assert.deepEqual(staged(), []);
  });

  it('answers 413 past the limit, declared or streamed, and keeps nothing of it', async () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(LIMIT + 1024, 7)]);
    assertErrorCode(await uploadRaw(stack, account.key, big, 'big.pdf'), 413, 'payload_too_large');
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${stack.url}/v1/assets?filename=big.pdf`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/pdf', 'transfer-encoding': 'chunked' },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      for (let sent = 0; sent < big.length; sent += 16 * 1024) request.write(big.subarray(sent, sent + 16 * 1024));
      request.end();
    });
    assert.equal(chunked, 413);
    assert.equal(stored(sha256(big)), false);
    await waitFor('the staging folder to be empty', () => staged().length === 0);
  });

  it('keeps nothing of an upload the client abandons midway', async () => {
    const before = await DriveFile.query(stack.deps.db).where({ tenant_id: account.tenantId }).resultSize();
    await new Promise<void>((resolve) => {
      const request = http.request(`${stack.url}/v1/assets?filename=cut.pdf`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/pdf', 'content-length': String(LIMIT - 10) },
      });
      request.on('error', () => resolve());
      request.write(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64 * 1024, 3)]));
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 300);
    });
    await waitFor('the staging folder to be empty', () => staged().length === 0);
    assert.equal(await DriveFile.query(stack.deps.db).where({ tenant_id: account.tenantId }).resultSize(), before, 'no Drive file for it');
  });

  it('needs a Business+ key (401 without one, 403 on another plan)', async () => {
    const pdf = (await driveSamples())[0].bytes;
    assertErrorCode(
      await call(stack.url, 'POST', '/v1/assets', { raw: pdf, headers: { 'content-type': 'application/pdf' } }),
      401,
      'unauthorized',
    );
    const free = await createAccount(stack.deps.db, { plan: 'free' });
    assertErrorCode(await uploadRaw(stack, free.key, pdf, 'x.pdf'), 403, 'plan_required');
  });

  it('sends a document made from an uploaded PDF with its own widgets; its principal signs on them, pdfsig-valid', async () => {
    const { account: owner, principal } = await mandatedAccount(stack, { level: 'L2', name: 'Uma Uploader' });
    const pdf = (await driveSamples())[0].bytes;
    const uploaded = await uploadRaw(stack, owner.key, pdf, 'our-contract.pdf');
    const widgets = [
      { id: 'sig-us', type: 'signature', role: 'Us', page: 1, x: 72, y: 600, width: 180, height: 40 },
      { id: 'date-us', type: 'date', role: 'Us', page: 1, x: 260, y: 600, width: 100, height: 20 },
      { id: 'sig-them', type: 'signature', role: 'Them', page: 1, x: 320, y: 680, width: 180, height: 40 },
    ];
    const bad = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: {
        drive_file_id: uploaded.body.drive_file_id,
        name: 'x',
        signers: [{ name: 'A', email: 'a@example.test' }],
        widgets: [{ ...widgets[0], page: 9 }],
      },
    });
    assertErrorCode(bad, 400, 'invalid_request');
    assert.ok(
      bad.body.error.details.some((d: { path: string }) => d.path === 'widgets.0.page'),
      bad.text,
    );
    const both = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: {
        drive_file_id: uploaded.body.drive_file_id,
        template_id: 'tpl_x',
        name: 'x',
        signers: [{ name: 'A', email: 'a@example.test' }],
        widgets,
      },
    });
    assertErrorCode(both, 400, 'invalid_request');
    const png = await uploadRaw(stack, owner.key, (await driveSamples())[1].bytes, 'sig.png');
    const notPdf = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: { drive_file_id: png.body.drive_file_id, name: 'x', signers: [{ name: 'A', email: 'a@example.test' }], widgets },
    });
    assertErrorCode(notPdf, 400, 'invalid_request');

    const created = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: {
        drive_file_id: uploaded.body.drive_file_id,
        widgets,
        name: 'Our own contract',
        signers: [
          { name: principal.name, email: principal.email },
          { name: 'Theo Them', email: 'theo-them@example.test' },
        ],
        send: true,
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.template_id, null);
    // The file now backs a live document: it cannot be deleted.
    assertErrorCode(await call(stack.url, 'DELETE', `/v1/drive/${uploaded.body.drive_file_id}`, { key: owner.key }), 409, 'invalid_state');
    const signed = await call(stack.url, 'POST', `/v1/documents/${created.body.document_id}/sign`, {
      key: owner.key,
      body: { reason: 'our terms' },
    });
    assert.equal(signed.status, 200, signed.text);
    const pdfNow = await downloadPdf(stack, owner.key, created.body.document_id);
    assert.ok((await pdfsig(pdfNow)).valid);
  });

  it('deletes a file no live transfer or document uses; then it is gone (404)', async () => {
    const uploaded = await uploadRaw(stack, account.key, (await driveSamples())[4].bytes, 'old.zip');
    const deleted = await call(stack.url, 'DELETE', `/v1/drive/${uploaded.body.drive_file_id}`, { key: account.key });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { drive_file_id: uploaded.body.drive_file_id, deleted: true });
    assertErrorCode(await call(stack.url, 'GET', `/v1/drive/${uploaded.body.drive_file_id}`, { key: account.key }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'DELETE', `/v1/drive/${uploaded.body.drive_file_id}`, { key: account.key }), 404, 'not_found');
  });
});
