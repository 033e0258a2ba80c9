import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { freePort } from '../test/ports';
import { createTestBucket, type TestBucket } from '../test/s3';
import { type Stack, startStack } from '../test/stack';
import { createS3BlobStore } from './blobs-s3';
import { parseBlobUrl } from './config/blob-url';
import { ConfigError, loadConfig } from './config/config';
import { ServiceError } from './errors';

const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A body that arrives in small pieces, as an upload does. */
function trickle(bytes: Buffer, piece = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += piece) yield bytes.subarray(offset, offset + piece);
    })(),
  );
}

describe('S3 blob store against MinIO', () => {
  let bucket: TestBucket;
  let staging: string;
  let blobs: ReturnType<typeof createS3BlobStore>;

  before(async () => {
    bucket = await createTestBucket();
    staging = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-s3-staging-'));
    blobs = createS3BlobStore({
      bucket: bucket.name,
      endpoint: bucket.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: bucket.credentials,
      stagingDirectory: staging,
      partSize: 5 * MiB,
    });
  });
  after(async () => {
    blobs.client.destroy();
    await bucket.drop();
    fs.rmSync(staging, { recursive: true, force: true });
  });

  const staged = () => fs.readdirSync(staging);

  it('puts, gets, has and sizes a small blob under blobs/<ab>/<sha256>; a second put of the same bytes is a no-op', async () => {
    const bytes = randomBytes(1000);
    const hash = await blobs.put(bytes);
    assert.equal(hash, sha256(bytes));
    assert.equal(blobs.key(hash), `blobs/${hash.slice(0, 2)}/${hash}`);
    assert.deepEqual(await bucket.keys(), [blobs.key(hash)]);
    assert.ok((await blobs.get(hash)).equals(bytes));
    assert.equal(await blobs.has(hash), true);
    assert.equal(await blobs.size(hash), 1000);
    const before = await bucket.client.send(new HeadObjectCommand({ Bucket: bucket.name, Key: blobs.key(hash) }));
    assert.equal(await blobs.put(bytes), hash);
    const again = await bucket.client.send(new HeadObjectCommand({ Bucket: bucket.name, Key: blobs.key(hash) }));
    assert.equal(again.LastModified?.getTime(), before.LastModified?.getTime(), 'not written again');
  });

  it('answers a missing blob: has() false, get/stream/size fail with ENOENT', async () => {
    const missing = sha256(Buffer.from('never stored'));
    assert.equal(await blobs.has(missing), false);
    await assert.rejects(blobs.get(missing), { code: 'ENOENT' });
    await assert.rejects(blobs.stream(missing), { code: 'ENOENT' });
    await assert.rejects(blobs.size(missing), { code: 'ENOENT' });
    assert.throws(() => blobs.key('../../etc/passwd'), /not a SHA-256/);
  });

  it('streams a blob whole and a byte range of it (bytes=start-end, inclusive)', async () => {
    const bytes = randomBytes(300_000);
    const hash = await blobs.put(bytes);
    assert.ok((await drain(await blobs.stream(hash))).equals(bytes));
    assert.ok((await drain(await blobs.stream(hash, { start: 1000, end: 1999 }))).equals(bytes.subarray(1000, 2000)));
    assert.ok((await drain(await blobs.stream(hash, { start: 299_999, end: 299_999 }))).equals(bytes.subarray(299_999)));
  });

  it('stages to a local file (hashed, sniffable), then commit() sends it to the bucket and leaves nothing local', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(50_000)]);
    const blob = await blobs.stage(trickle(bytes));
    assert.equal(blob.sha256, sha256(bytes));
    assert.equal(blob.size, bytes.length);
    assert.equal(fs.readFileSync(blob.path).subarray(0, 8).toString(), '%PDF-1.7', 'the staged file can be sniffed');
    assert.equal(await blobs.has(blob.sha256), false, 'nothing is in the bucket before commit');
    await blob.commit();
    assert.equal(await blobs.has(blob.sha256), true);
    assert.ok((await blobs.get(blob.sha256)).equals(bytes));
    assert.deepEqual(staged(), []);
    // The same bytes again: commit finds them stored and only drops the staged file.
    const twice = await blobs.stage(trickle(bytes));
    await twice.commit();
    assert.deepEqual(staged(), []);
  });

  it('stage() then discard() keeps nothing, in the bucket or on disk; a source that fails midway leaves nothing either', async () => {
    const keysBefore = await bucket.keys();
    const bytes = randomBytes(70_000);
    const blob = await blobs.stage(trickle(bytes));
    await blob.discard();
    assert.equal(await blobs.has(sha256(bytes)), false);
    assert.deepEqual(await bucket.keys(), keysBefore);
    assert.deepEqual(staged(), []);

    const broken = new Readable({
      read() {
        this.push(randomBytes(1024));
        this.destroy(new Error('client went away'));
      },
    });
    await assert.rejects(blobs.stage(broken), /client went away/);
    assert.deepEqual(staged(), []);
    assert.deepEqual(await bucket.keys(), keysBefore);
  });

  it('commits 12 MiB in 5 MiB parts (multipart) and reads back the same SHA-256, whole and across a part boundary', async () => {
    const bytes = randomBytes(12 * MiB);
    const blob = await blobs.stage(trickle(bytes, MiB));
    await blob.commit();
    assert.equal(await blobs.size(blob.sha256), 12 * MiB);
    const head = await bucket.client.send(new HeadObjectCommand({ Bucket: bucket.name, Key: blobs.key(blob.sha256) }));
    assert.match(head.ETag ?? '', /-3"$/, 'an ETag of three parts: it went up as a multipart upload');
    const back = createHash('sha256');
    for await (const chunk of await blobs.stream(blob.sha256)) back.update(chunk as Buffer);
    assert.equal(back.digest('hex'), sha256(bytes));
    const boundary = 5 * MiB;
    const across = await drain(await blobs.stream(blob.sha256, { start: boundary - 10, end: boundary + 9 }));
    assert.ok(across.equals(bytes.subarray(boundary - 10, boundary + 10)));
    assert.equal(await bucket.openUploads(), 0, 'no multipart upload left open');
    assert.deepEqual(staged(), []);
  });
});

describe('SVC_BLOB_URL', () => {
  const dataDir = '/srv/svc';

  it('defaults to files under the data dir; file: URLs name a directory', () => {
    assert.deepEqual(loadConfig({ SVC_DATA_DIR: dataDir }).blobs, { kind: 'file', directory: '/srv/svc/blobs' });
    assert.deepEqual(parseBlobUrl('file:///var/lib/blobs', dataDir), { kind: 'file', directory: '/var/lib/blobs' });
  });

  it('reads an s3: URL: bucket, prefix, endpoint, region, path style; credentials from AWS_* only', () => {
    const config = loadConfig({
      SVC_DATA_DIR: dataDir,
      SVC_BLOB_URL: 's3://svc-blobs?endpoint=http://minio:9000&region=eu-west-1&force_path_style=true',
      AWS_ACCESS_KEY_ID: 'key-id',
      AWS_SECRET_ACCESS_KEY: 'key-secret',
    });
    assert.deepEqual(config.blobs, {
      kind: 's3',
      bucket: 'svc-blobs',
      prefix: 'blobs',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'key-id', secretAccessKey: 'key-secret' },
      stagingDirectory: '/srv/svc/staging',
    });
    const aws = parseBlobUrl('s3://my.bucket/tenant-a/files/', dataDir, { AWS_REGION: 'us-west-2' });
    assert.equal(aws.kind === 's3' && aws.prefix, 'tenant-a/files');
    assert.equal(aws.kind === 's3' && aws.region, 'us-west-2');
    assert.equal(aws.kind === 's3' && aws.endpoint, undefined);
    assert.equal(aws.kind === 's3' && aws.credentials, undefined, 'the SDK default chain (roles, profiles)');
  });

  it('stops the process with a ConfigError naming SVC_BLOB_URL for a malformed value, never echoing a secret', () => {
    const cases: Array<[string, RegExp]> = [
      ['not a url', /SVC_BLOB_URL: not a URL/],
      ['ftp://bucket', /SVC_BLOB_URL: unsupported scheme ftp:/],
      ['s3://Bad_Bucket', /SVC_BLOB_URL: "Bad_Bucket" is not a valid bucket name/],
      ['s3://bucket:9000', /SVC_BLOB_URL: put the server in \?endpoint=/],
      ['s3://bucket?endpoint=minio:9000', /SVC_BLOB_URL: endpoint "minio:9000" must be an http/],
      ['s3://bucket?force_path_style=maybe', /SVC_BLOB_URL: force_path_style must be true or false/],
      ['s3://bucket?regoin=eu', /SVC_BLOB_URL: unknown parameter "regoin"/],
      ['s3://AKIAEXAMPLE:hunter2@bucket', /SVC_BLOB_URL: must not carry credentials/],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => loadConfig({ SVC_BLOB_URL: value }),
        (error: Error) => error instanceof ConfigError && message.test(error.message) && !error.message.includes('hunter2'),
        value,
      );
    }
    assert.throws(() => loadConfig({ SVC_BLOB_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'only-the-id' }), /set both AWS_ACCESS_KEY_ID/);
  });
});

describe('an object store that does not answer', () => {
  let endpoint: string;
  let stack: Stack;
  const credentials = { accessKeyId: 'nobody', secretAccessKey: 'nothing-here' };

  before(async () => {
    // A port nothing listens on: every call is refused.
    endpoint = `http://127.0.0.1:${await freePort()}`;
    stack = await startStack({
      env: {
        SVC_BLOB_URL: `s3://down?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      },
    });
  });
  after(async () => stack?.close());

  it('fails each call with 503 service_unavailable (retried by activities), not an unexplained error', async () => {
    const store = createS3BlobStore({
      bucket: 'down',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials,
      stagingDirectory: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-s3-down-')),
    });
    const unavailable = (error: unknown) => error instanceof ServiceError && error.code === 'service_unavailable';
    await assert.rejects(store.has('a'.repeat(64)), unavailable);
    await assert.rejects(store.put(Buffer.from('bytes')), unavailable);
    await assert.rejects(store.get('a'.repeat(64)), unavailable);
    const staged = await store.stage(Readable.from([Buffer.from('staged bytes')]));
    await assert.rejects(staged.commit(), unavailable);
    await staged.discard();
  });

  it('answers an upload through the API with 503 service_unavailable, not 500', async () => {
    const account = await createAccount(stack.deps.db);
    const reply = await call(stack.url, 'POST', '/v1/assets?filename=notes.pdf', {
      key: account.key,
      raw: Buffer.from('%PDF-1.7\n%%EOF\n'),
      headers: { 'content-type': 'application/pdf' },
    });
    assert.equal(reply.status, 503, reply.text);
    assert.equal(reply.body.error.code, 'service_unavailable');
    assert.match(reply.body.error.message, /object store/);
  });
});
