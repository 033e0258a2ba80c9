// `npm run bench -- transfers`: a 1 GiB file (BENCH_TRANSFER_MB, in MiB) read and copied plainly on
// the disk the service stores on, then uploaded through POST /v1/assets and downloaded through a
// transfer's download URL, with the ratio to the plain figure and the process's peak RSS.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { MiB, mib, PDF_HEADER, patternedFile, RssSampler, uploadStreamed } from '../test/large-files';
import { startHarness } from './harness';
import { summarize } from './summary';

const SIZE = Number(process.env.BENCH_TRANSFER_MB ?? 1024) * MiB;

interface Timed {
  seconds: number;
  peakRss?: number;
}

/** Flushes dirty pages between steps, so one step's writeback is not billed to the next. */
function sync(): void {
  spawnSync('sync');
}

async function timed(step: () => Promise<unknown> | unknown, rss?: RssSampler): Promise<Timed> {
  sync();
  rss?.peak();
  const started = performance.now();
  await step();
  const seconds = (performance.now() - started) / 1000;
  return { seconds, peakRss: rss?.peak() };
}

function run(command: string, args: string[], stdout: 'ignore' | number = 'ignore'): void {
  const result = spawnSync(command, args, { stdio: ['ignore', stdout, 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr?.toString() || result.error?.message}`);
}

/** GET with node's http client, counting the body and dropping it (the client does no hashing of its own). */
async function download(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; size: number }> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(url, { agent: false }, resolve).once('error', reject);
  });
  let size = 0;
  await pipeline(
    response,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done();
      },
    }),
  );
  return { status: response.statusCode ?? 0, headers: response.headers, size };
}

/**
 * The bare reference for the HTTP steps: node's http server alone, storing a POSTed body to a file
 * while hashing it (what an upload has to do at least) and streaming a file back on GET.
 */
async function bareServer(dir: string, source: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.method === 'POST') {
      const hash = createHash('sha256');
      request.on('data', (chunk: Buffer) => hash.update(chunk));
      pipeline(request, fs.createWriteStream(path.join(dir, 'bare-upload.pdf'))).then(
        () => response.end(hash.digest('hex')),
        () => response.destroy(),
      );
      return;
    }
    response.writeHead(200, { 'content-length': fs.statSync(source).size, 'content-type': 'application/pdf' });
    pipeline(fs.createReadStream(source), response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/file`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main() {
  // Beside the harness's data dir (both under the OS temp dir): the same disk.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-transfers-'));
  const source = path.join(scratch, 'source.pdf');
  const harness = await startHarness({ SVC_UPLOAD_LIMIT_BYTES: String(Math.max(2 * SIZE, 100 * MiB)) });
  const rss = new RssSampler(100);
  try {
    await pipeline(patternedFile(SIZE - PDF_HEADER.length), fs.createWriteStream(source));
    const rows: string[][] = [];
    const mbps = (seconds: number) => (SIZE / 1e6 / seconds).toFixed(0);
    const reference = (label: string, figure: Timed) => {
      rows.push([label, figure.seconds.toFixed(2), mbps(figure.seconds), '', '', '', '', '']);
      return figure;
    };
    const measured = (label: string, figure: Timed, against: string, base: Timed) => {
      summarize({
        path: `${mib(SIZE)} ${label}`,
        measured: `${figure.seconds.toFixed(2)} s, ${mbps(figure.seconds)} MB/s, peak RSS +${mib(figure.peakRss! - baseline)}`,
        reference: `${against}: ${base.seconds.toFixed(2)} s`,
        ratio: `${(figure.seconds / base.seconds).toFixed(2)}x the time`,
        goal: '—',
      });
      return rows.push([
        label,
        figure.seconds.toFixed(2),
        mbps(figure.seconds),
        against,
        base.seconds.toFixed(2),
        mbps(base.seconds),
        `${(figure.seconds / base.seconds).toFixed(2)}x`,
        `${mib(figure.peakRss!)} (+${mib(figure.peakRss! - baseline)})`,
      ]);
    };

    const cat = reference('read: cat file > /dev/null', await timed(() => run('cat', [source], fs.openSync('/dev/null', 'w'))));
    reference(
      'read: dd bs=4M iflag=direct (no cache)',
      await timed(() => run('dd', [`if=${source}`, 'of=/dev/null', 'bs=4M', 'iflag=direct'])),
    );
    let sha256 = '';
    reference(
      'SHA-256 in node (read stream → hash)',
      await timed(async () => {
        const hash = createHash('sha256');
        for await (const chunk of fs.createReadStream(source)) hash.update(chunk as Buffer);
        sha256 = hash.digest('hex');
      }),
    );
    reference('copy: fs.copyFile (kernel copy)', await timed(() => fs.promises.copyFile(source, path.join(scratch, 'copied.pdf'))));
    fs.rmSync(path.join(scratch, 'copied.pdf'));
    const streamCopy = reference(
      'copy: read stream → write stream',
      await timed(() => pipeline(fs.createReadStream(source), fs.createWriteStream(path.join(scratch, 'copied.pdf')))),
    );
    fs.rmSync(path.join(scratch, 'copied.pdf'));

    const bare = await bareServer(scratch, source);
    const bareUpload = reference(
      'upload: bare node http server (hash + write)',
      await timed(async () => {
        const sent = await uploadStreamed(bare.url, '', fs.createReadStream(source), { length: SIZE, filename: 'x', hash: false });
        if (sent.text !== sha256) throw new Error(`bare upload hashed ${sent.text}`);
      }),
    );
    fs.rmSync(path.join(scratch, 'bare-upload.pdf'));
    const bareDownload = reference(
      'download: bare node http server (file stream)',
      await timed(async () => {
        const got = await download(bare.url);
        if (got.size !== SIZE) throw new Error(`bare download gave ${got.size} bytes`);
      }),
    );
    await bare.close();

    const account = await createAccount(harness.deps.db, { plan: 'business' });
    const baseline = rss.sample();
    let upload: Awaited<ReturnType<typeof uploadStreamed>> | undefined;
    const uploaded = await timed(async () => {
      upload = await uploadStreamed(harness.url, account.key, fs.createReadStream(source), {
        length: SIZE,
        filename: 'bench.pdf',
        hash: false,
      });
    }, rss);
    if (upload?.status !== 201) throw new Error(`upload answered ${upload?.status}: ${upload?.text}`);
    if (upload.body.sha256 !== sha256 || upload.body.size !== SIZE) throw new Error(`upload stored ${upload.text}, not ${sha256}`);

    const created = await call(harness.url, 'POST', '/v1/transfers', {
      key: account.key,
      body: {
        name: 'bench',
        drive_file_ids: [upload.body.drive_file_id],
        recipients: [{ email: 'bench@example.test', name: 'Bench' }],
      },
    });
    const offer = await call(harness.url, 'POST', `/v1/transfers/${created.body.transfer_id}/offer`, {
      key: account.key,
      body: { confirm: true },
    });
    const minted = await call(harness.url, 'POST', `/v1/public/transfers/${offer.body.recipients?.[0]?.token}/downloads`);
    if (minted.status !== 200) throw new Error(`downloads answered ${minted.status}: ${minted.text}`);
    const url = minted.body.files[0].url.replace(harness.deps.config.publicUrl, harness.url);
    let got: Awaited<ReturnType<typeof download>> | undefined;
    const downloaded = await timed(async () => {
      got = await download(url);
    }, rss);
    if (got?.status !== 200 || got.size !== SIZE || got.headers['x-content-sha256'] !== sha256)
      throw new Error(`download answered ${got?.status}, ${got?.size} bytes, SHA-256 ${got?.headers['x-content-sha256']}`);

    measured('upload: POST /v1/assets (raw body)', uploaded, 'stream copy', streamCopy);
    measured('upload: POST /v1/assets (raw body)', uploaded, 'bare http upload', bareUpload);
    measured('download: transfer download URL', downloaded, 'cat > /dev/null', cat);
    measured('download: transfer download URL', downloaded, 'bare http download', bareDownload);

    const header = ['step', 's', 'MB/s', 'reference', 'ref s', 'ref MB/s', 'ratio', 'peak RSS (over baseline)'];
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) =>
      cells
        .map((cell, i) => (i === 0 || i === 3 || i === 7 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  ')
        .trimEnd();
    console.log(
      `transfer benchmark: ${mib(SIZE)} (${SIZE} bytes, MB = 10^6 bytes), ${os.cpus().length} cores, database ${harness.deps.dbDriver}; ` +
        `files under ${os.tmpdir()}; sync before each step; RSS baseline ${mib(baseline)}`,
    );
    console.log(line(header));
    for (const row of rows) console.log(line(row));
  } finally {
    rss.stop();
    await harness.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
