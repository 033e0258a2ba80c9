import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocumentRevision, Principal } from '../db/models';
import { loadSealCertificate } from '../lib/pdf/seal-certificate';
import { type Spawned, spawnNpm, stopGroup } from '../test/cli';
import { downloadPdf, seedSamples, sentNda } from '../test/documents';
import { driveSamples } from '../test/files';
import { call } from '../test/http';
import { pdfsig } from '../test/pdf-tools';
import { mandatedAccount } from '../test/principal';
import { createTestBucket, type TestBucket } from '../test/s3';
import { type Stack, startStack } from '../test/stack';
import { waitFor } from '../test/wait';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const keyOf = (hash: string) => `blobs/${hash.slice(0, 2)}/${hash}`;

/** Every file under a directory, relative to it. */
function filesUnder(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return (fs.readdirSync(directory, { recursive: true }) as string[]).filter((name) => fs.statSync(path.join(directory, name)).isFile());
}

/**
 * SVC_BLOB_URL pointing at a MinIO bucket: the API (in this process) and a worker (`npm run worker`,
 * its own process) have separate data dirs and share only PostgreSQL, Temporal, the bucket and their
 * configuration (SVC_SECRET_KEY, SVC_SIGNING_P12), as on two hosts.
 */
describe('object storage: an API and a worker on separate data dirs share PDFs, images and Drive files through one bucket', () => {
  let bucket: TestBucket;
  let stack: Stack;
  let worker: Spawned;
  let scratch: string;
  let workerDataDir: string;

  before(async () => {
    bucket = await createTestBucket();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-object-storage-'));
    workerDataDir = path.join(scratch, 'worker-data');
    // The seal comes from configuration, not from a data dir: both processes seal with it.
    const seal = await loadSealCertificate({ dataDir: path.join(scratch, 'seal-maker') });
    stack = await startStack({
      worker: false,
      env: {
        ...bucket.env,
        SVC_SECRET_KEY: randomBytes(32).toString('base64'),
        SVC_SIGNING_P12: path.join(scratch, 'seal-maker', 'pki', 'seal.p12'),
        SVC_SIGNING_P12_PASSPHRASE: seal.passphrase,
        SVC_APPLY_WAIT_MS: '60000',
      },
    });
    worker = spawnNpm(['run', '--silent', 'worker'], { ...process.env, ...stack.env, SVC_DATA_DIR: workerDataDir, LOG_LEVEL: 'warn' });
    await waitFor(
      'the worker process to poll the task queue',
      async () => ((await call(stack.url, 'GET', '/v1/health')).body?.worker?.pollers ?? 0) >= 1,
      60_000,
    ).catch((error: Error) => assert.fail(`${error.message}\nworker:\n${worker.output()}`));
  });
  after(async () => {
    if (worker) await stopGroup(worker.child.pid!, 'SIGTERM').catch(() => undefined);
    await stack?.close();
    await bucket?.drop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Neither process kept a blob on its disk, and neither left a staged file. */
  function assertNothingOnDisk() {
    for (const dataDir of [stack.config.dataDir, workerDataDir]) {
      assert.deepEqual(filesUnder(path.join(dataDir, 'blobs')), [], `no blobs under ${dataDir}`);
      assert.deepEqual(filesUnder(path.join(dataDir, 'staging')), [], `nothing staged under ${dataDir}`);
    }
  }

  it('signs a document (revision 0 sealed by the API, the signature applied and sealed by the worker) and serves the signed PDF from the bucket', async () => {
    assert.equal(stack.config.blobs.kind, 's3');
    const { account, principal } = await mandatedAccount(stack, { name: 'Stella Storage' });
    const { nda } = await seedSamples(stack, account);
    const document = await sentNda(stack, account, nda, principal, { name: 'Bucket NDA' });
    const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: account.key,
      body: { reason: 'Stored in a bucket' },
    });
    assert.equal(signed.status, 200, `${signed.text}\nworker:\n${worker.output()}`);
    assert.equal(signed.body.status, 'applied');

    const pdf = await downloadPdf(stack, account.key, document.document_id);
    assert.ok((await pdfsig(pdf)).valid, 'the downloaded PDF carries a valid seal');
    assert.equal(sha256(pdf), signed.body.document_hash);

    const keys = await bucket.keys();
    assert.ok(keys.includes(keyOf(sha256(pdf))), 'the signed PDF is in the bucket');
    assert.ok(keys.includes(keyOf(nda.pdf_sha256)), "the template's PDF is in the bucket");
    const stored = await Principal.query(stack.deps.db).findById(principal.id);
    assert.ok(keys.includes(keyOf(stored!.signature_sha256!)), 'the signature image is in the bucket');
    const revisions = await DocumentRevision.query(stack.deps.db).where({ document_id: document.document_id });
    assert.ok(revisions.length >= 2, 'revision 0 and the signed revision');
    for (const revision of revisions) {
      assert.ok(keys.includes(keyOf(revision.unsealed_sha256)), `revision ${revision.revision} unsealed`);
      assert.ok(keys.includes(keyOf(revision.sealed_sha256)), `revision ${revision.revision} sealed`);
    }
    assertNothingOnDisk();
  });

  it('uploads a Drive file into the bucket and downloads it (whole and a byte range) through a share transfer', async () => {
    const { account } = await mandatedAccount(stack, { level: null, appearance: false });
    const sample = (await driveSamples()).find((file) => file.kind === 'pdf')!;
    const upload = await call(stack.url, 'POST', `/v1/assets?filename=${encodeURIComponent(sample.name)}`, {
      key: account.key,
      raw: sample.bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(upload.status, 201, upload.text);
    assert.equal(upload.body.sha256, sha256(sample.bytes));
    assert.ok((await bucket.keys()).includes(keyOf(upload.body.sha256)), 'the Drive file is in the bucket');

    const created = await call(stack.url, 'POST', '/v1/transfers', {
      key: account.key,
      body: {
        name: 'Bucket pack',
        drive_file_ids: [upload.body.drive_file_id],
        recipients: [{ email: `bucket-${Date.now()}@example.test`, name: 'Rita Recipient' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const offer = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: account.key,
      body: { confirm: true },
    });
    assert.equal(offer.status, 200, offer.text);
    const minted = await call(stack.url, 'POST', `/v1/public/transfers/${offer.body.recipients[0].token}/downloads`);
    assert.equal(minted.status, 200, minted.text);
    const url = minted.body.files[0].url.replace(stack.config.publicUrl, stack.url);

    const whole = await fetch(url);
    assert.equal(whole.status, 200);
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(sample.bytes));
    const end = Math.min(sample.bytes.length - 1, 149);
    const ranged = await fetch(url, { headers: { range: `bytes=100-${end}` } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-range'), `bytes 100-${end}/${sample.bytes.length}`);
    assert.ok(Buffer.from(await ranged.arrayBuffer()).equals(sample.bytes.subarray(100, end + 1)));
    assertNothingOnDisk();
  });
});
