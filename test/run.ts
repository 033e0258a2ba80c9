// The test run: one Temporal dev server and one workflow bundle for every test file (and one MinIO
// server when a chosen file uses a test bucket), then node's test runner over every *.test.ts.
// Arguments narrow the run to matching files.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer } from '../runtime/dev-server';
import { ensureMinio, type RunningMinio, startMinio } from '../runtime/minio';
import { ensureTemporalCli } from '../runtime/temporal-cli';
import { bundleWorkflows } from '../worker/worker';
import { freePort } from './ports';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SKIP = new Set(['node_modules', '.git', '.data', 'tmp']);

function findTests(directory: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...findTests(full));
    else if (entry.name.endsWith('.test.ts')) found.push(path.relative(ROOT, full));
  }
  return found.sort();
}

async function main(): Promise<number> {
  // --reliability (npm run test:reliability) runs test/reliability/ alone, one file at a time: its tests
  // kill and restart processes and take minutes, so a run without filters leaves them out.
  const reliability = process.argv.includes('--reliability');
  const filters = process.argv.slice(2).filter((arg) => arg !== '--reliability');
  const inReliability = (file: string) => file.startsWith('test/reliability/');
  const files = findTests(ROOT)
    .filter((file) => (reliability ? inReliability(file) : filters.length > 0 || !inReliability(file)))
    .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));
  if (files.length === 0) throw new Error(`no test files match ${filters.join(' ')}`);

  // Object-storage tests (test/s3.ts) need a MinIO server: built once like the Temporal CLI, in parallel with it.
  const usesS3 = (file: string) => /\b(createTestBucket|TEST_S3_ENDPOINT)\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const needsS3 = !process.env.TEST_S3_ENDPOINT && files.some(usesS3);
  const [binary, minioBinary] = await Promise.all([
    ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI }),
    needsS3 ? ensureMinio({ explicit: process.env.MINIO_BINARY }) : undefined,
  ]);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const devServer = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await startDevServer({ binary, port: await freePort(), uiPort: 0, headless: true, logFile: path.join(scratch, 'temporal.log') });
  let minio: RunningMinio | undefined;
  try {
    if (minioBinary) {
      const [port, consolePort] = [await freePort(), await freePort()];
      minio = await startMinio({ binary: minioBinary, port, consolePort, logFile: path.join(scratch, 'minio.log') });
    }
    const bundlePath = path.join(scratch, 'workflows.js');
    fs.writeFileSync(bundlePath, (await bundleWorkflows()).code);
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? devServer!.address,
      TEMPORAL_CLI: binary,
      SVC_WORKFLOW_BUNDLE: bundlePath,
      TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      ...(minio ? { TEST_S3_ENDPOINT: minio.endpoint, TEST_S3_ACCESS_KEY: minio.accessKey, TEST_S3_SECRET_KEY: minio.secretKey } : {}),
    };
    const args = [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${process.env.TEST_CONCURRENCY ?? (reliability ? 1 : 2)}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${path.join(ROOT, 'test/reporter.mjs')}`,
      '--test-reporter-destination=stdout',
      ...files,
    ];
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' });
      child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
    });
    return code;
  } finally {
    await minio?.stop();
    await devServer?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n0 passed, 1 failed\n`);
    process.exit(1);
  },
);
