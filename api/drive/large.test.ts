import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import {
  downloadStreamed,
  GiB,
  MiB,
  mib,
  PDF_HEADER,
  patternedFile,
  patternedSlice,
  RssSampler,
  uploadStreamed,
} from '../../test/large-files';
import { type Stack, startStack } from '../../test/stack';

const SIZE = PDF_HEADER.length + GiB;
/** Streaming keeps a few MiB in flight; buffering a 1 GiB file whole anywhere would pass this by far. */
const RSS_ALLOWANCE = 200 * MiB;

describe('Drive: a 1 GiB file streams up and down with a flat RSS', () => {
  let stack: Stack;
  let account: Account;
  let rss: RssSampler | undefined;

  before(async () => {
    stack = await startStack({ env: { SVC_UPLOAD_LIMIT_BYTES: String(2 * GiB) } });
    account = await createAccount(stack.deps.db, { plan: 'business' });
  });
  after(async () => {
    rss?.stop();
    await stack?.close();
  });

  it('uploads 1 GiB, downloads it through a share transfer (whole and the last MiB by Range), RSS within baseline + 200 MiB', {
    timeout: 20 * 60_000,
  }, async () => {
    const staging = path.join(stack.config.dataDir, 'blobs', '.staging');
    // The service runs in this process: the sampler measures client and server together.
    rss = new RssSampler(100);
    const baseline = rss.sample();

    let started = performance.now();
    const upload = await uploadStreamed(stack.url, account.key, patternedFile(GiB), { length: SIZE, filename: 'large.pdf' });
    const uploadSeconds = (performance.now() - started) / 1000;
    const uploadPeak = rss.peak();
    assert.equal(upload.status, 201, upload.text);
    assert.equal(upload.sent.size, SIZE);
    assert.equal(upload.body.kind, 'pdf');
    assert.equal(upload.body.size, SIZE);
    assert.equal(upload.body.sha256, upload.sent.sha256);
    const stored = path.join(stack.config.dataDir, 'blobs', upload.sent.sha256.slice(0, 2), upload.sent.sha256);
    assert.equal(fs.statSync(stored).size, SIZE, 'kept under its SHA-256');
    assert.deepEqual(fs.readdirSync(staging), [], 'nothing is left in staging');

    const created = await call(stack.url, 'POST', '/v1/transfers', {
      key: account.key,
      body: {
        name: 'Large file',
        drive_file_ids: [upload.body.drive_file_id],
        recipients: [{ email: `large-${Date.now()}@example.test`, name: 'Lara Large' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const offer = await call(stack.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: account.key,
      body: { confirm: true },
    });
    assert.equal(offer.status, 200, offer.text);
    assert.equal(offer.body.status, 'released', 'share mode releases at once');
    const minted = await call(stack.url, 'POST', `/v1/public/transfers/${offer.body.recipients[0].token}/downloads`);
    assert.equal(minted.status, 200, minted.text);
    // The link carries SVC_PUBLIC_URL's host; the test server is stack.url.
    const url = minted.body.files[0].url.replace(stack.config.publicUrl, stack.url);

    started = performance.now();
    const download = await downloadStreamed(url);
    const downloadSeconds = (performance.now() - started) / 1000;
    assert.equal(download.status, 200);
    assert.equal(Number(download.headers['content-length']), SIZE);
    assert.equal(download.received.size, SIZE);
    assert.equal(download.received.sha256, upload.sent.sha256);
    assert.equal(download.headers['x-content-sha256'], upload.sent.sha256);

    const start = SIZE - MiB;
    const ranged = await downloadStreamed(url, { headers: { range: `bytes=${start}-${SIZE - 1}` }, keep: true });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers['content-range'], `bytes ${start}-${SIZE - 1}/${SIZE}`);
    assert.equal(Number(ranged.headers['content-length']), MiB);
    assert.ok(ranged.bytes!.equals(patternedSlice(start, SIZE)), 'the last MiB is the bytes the generator made there');
    const downloadPeak = rss.peak();
    rss.stop();

    console.log(
      `RSS baseline ${mib(baseline)}; peak ${mib(uploadPeak)} during the upload (${uploadSeconds.toFixed(1)} s), ` +
        `${mib(downloadPeak)} during the download (${downloadSeconds.toFixed(1)} s)`,
    );
    const peak = Math.max(uploadPeak, downloadPeak);
    assert.ok(
      peak <= baseline + RSS_ALLOWANCE,
      `RSS peaked at ${mib(peak)}, more than ${mib(RSS_ALLOWANCE)} above the baseline ${mib(baseline)}: something buffers`,
    );
  });
});
