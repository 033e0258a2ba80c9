// The test run: one Temporal dev server and one workflow bundle for every test file (and one MinIO
// server when a chosen file uses a test bucket, pdfcpu when one validates PDFs with it), then node's
// test runner over every *.test.ts on PostgreSQL, the files marked ALSO_ON_PGLITE again on embedded
// PGlite, and after them the reliability files (test/reliability/) one at a time. Arguments narrow
// the run to matching files; --reliability runs the reliability files alone, --pglite the PGlite
// phase alone.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCompose } from '../runtime/compose';
import { startDevServer } from '../runtime/dev-server';
import { ensureMinio, type RunningMinio, startMinio } from '../runtime/minio';
import { ensurePdfcpu } from '../runtime/pdfcpu';
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

/**
 * Runs test files under node's test runner, passing its output through, and answers its exit code
 * with the counts of the reporter's closing `N passed, N failed` line.
 */
function runFiles(files: string[], concurrency: string, env: NodeJS.ProcessEnv): Promise<{ code: number; passed: number; failed: number }> {
  const args = [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(ROOT, 'test/reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    ...files,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['inherit', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-4096);
    });
    child.on('exit', (exitCode, signal) => {
      const counts = [...tail.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
      const code = exitCode ?? (signal ? 1 : 0);
      resolve({ code, passed: Number(counts?.[1] ?? 0), failed: Number(counts?.[2] ?? (code === 0 ? 0 : 1)) });
    });
  });
}

/** `tsc --noEmit` over the whole project (npm run typecheck), its output passed through: one test that passes or fails. */
function typecheck(): Promise<{ code: number; passed: number; failed: number }> {
  process.stdout.write('=== typecheck: tsc --noEmit (npm run typecheck)\n');
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '--pretty', 'false'], { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (exitCode) => {
      const ok = exitCode === 0;
      process.stdout.write(ok ? '✔ the TypeScript compiler finds no error\n' : '✖ the TypeScript compiler finds errors (above)\n');
      resolve({ code: ok ? 0 : 1, passed: ok ? 1 : 0, failed: ok ? 0 : 1 });
    });
  });
}

async function main(): Promise<number> {
  // test/reliability/ kills and restarts processes (workers, Temporal, a private PostgreSQL): its
  // files run one at a time after the others, never beside them. --reliability (npm run
  // test:reliability) runs them alone; filters narrow either part to matching files.
  const onlyReliability = process.argv.includes('--reliability');
  // --pglite: only the PGlite phase (the marked files among those chosen).
  const onlyPglite = process.argv.includes('--pglite');
  const filters = process.argv.slice(2).filter((arg) => arg !== '--reliability' && arg !== '--pglite');
  const inReliability = (file: string) => file.startsWith('test/reliability/');
  // Files that apply, complete, accept offers or release transfers say so with this marker and run a
  // second time on embedded PGlite (one connection), as `npm start` runs them (test/stack.ts).
  const onPglite = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').includes('ALSO_ON_PGLITE');
  const chosen = findTests(ROOT).filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));
  const files = onlyReliability ? [] : chosen.filter((file) => !inReliability(file));
  const reliabilityFiles = onlyPglite ? [] : chosen.filter(inReliability);
  if (files.length + reliabilityFiles.length === 0) throw new Error(`no test files match ${filters.join(' ')}`);
  const all = [...files, ...reliabilityFiles];

  // Object-storage tests (test/s3.ts) need a MinIO server: built once like the Temporal CLI, in parallel with it.
  const usesS3 = (file: string) => /\b(createTestBucket|TEST_S3_ENDPOINT)\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const needsS3 = !process.env.TEST_S3_ENDPOINT && all.some(usesS3);
  // Files that validate sealed PDFs with pdfcpu (test/pdf-validators.ts) get it built once the same way.
  const usesPdfcpu = (file: string) => /\b(ensurePdfcpu|pdfcpuValidate)\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  // Files that check docker-compose.yml with `docker compose config` get Compose built once the same way.
  const usesCompose = (file: string) => /\bensureCompose\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const [binary, minioBinary, pdfcpuBinary, composeBinary] = await Promise.all([
    ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI }),
    needsS3 ? ensureMinio({ explicit: process.env.MINIO_BINARY }) : undefined,
    all.some(usesPdfcpu) ? ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY }) : undefined,
    all.some(usesCompose) ? ensureCompose({ explicit: process.env.COMPOSE_BINARY }) : undefined,
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
      ...(pdfcpuBinary ? { PDFCPU_BINARY: pdfcpuBinary } : {}),
      ...(composeBinary ? { COMPOSE_BINARY: composeBinary } : {}),
      ...(minio ? { TEST_S3_ENDPOINT: minio.endpoint, TEST_S3_ACCESS_KEY: minio.accessKey, TEST_S3_SECRET_KEY: minio.secretKey } : {}),
    };
    const concurrency = process.env.TEST_CONCURRENCY ?? '2';
    const phases = [
      { files: onlyPglite ? [] : files, concurrency, env },
      { title: 'on embedded PGlite', files: files.filter(onPglite), concurrency, env: { ...env, TEST_DB_DRIVER: 'pglite' } },
      { title: 'reliability', files: reliabilityFiles, concurrency: process.env.TEST_RELIABILITY_CONCURRENCY ?? '1', env },
    ].filter((phase) => phase.files.length > 0);
    let code = 0;
    let passed = 0;
    let failed = 0;
    // The whole suite (no filters) starts with the typecheck: tsx runs the tests without checking types.
    const checked = filters.length === 0 && !onlyPglite && !onlyReliability ? await typecheck() : undefined;
    if (checked) ({ code, passed, failed } = checked);
    for (const phase of phases) {
      if (phase.title) process.stdout.write(`\n=== ${phase.title}: ${phase.files.length} file(s)\n`);
      const result = await runFiles(phase.files, phase.concurrency, phase.env);
      code ||= result.code;
      passed += result.passed;
      failed += result.failed;
    }
    // Several parts ran: the closing line counts them together.
    if (phases.length + (checked ? 1 : 0) > 1)
      process.stdout.write(`\nevery part of the run together:\n${passed} passed, ${failed} failed\n`);
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
