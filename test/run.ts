// The test run (npm test; docs/testing.md): one Temporal dev server and one workflow bundle for every
// test file (and one MinIO server when a chosen file uses a test bucket, pdfcpu when one validates PDFs
// with it), then node's test runner over every *.test.ts on PostgreSQL, the files marked ALSO_ON_PGLITE
// again on embedded PGlite, and after them the reliability files (test/reliability/) one at a time.
// The files run in batches, several to a process (test/batch.ts) sharing its stack, in three lanes; a
// file with a line `// Own process: <why>` at its top has a process to itself. Arguments narrow the run
// to matching files; --reliability runs the reliability files alone, --pglite the PGlite phase alone.
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

/** A file that must run in a process of its own says why on a line `// Own process: …` at its top. */
const OWN_PROCESS = /^\/\/ Own process: /m;

interface Phase {
  name: string;
  env: NodeJS.ProcessEnv;
  /** Wall time: the first of its jobs started to the last ended. */
  started?: number;
  ended?: number;
  files: number;
  passed: number;
  failed: number;
}

interface Job {
  phase: Phase;
  files: string[];
  weight: number;
}

interface FileTime {
  phase: string;
  file: string;
  seconds: number;
}

/**
 * Runs one batch of test files in one process (test/batch.ts under node's test runner with
 * --test-isolation=none): the files one after another on the process's shared stack. Its output is
 * held and printed whole when it ends, so batches running side by side do not interleave. Answers the
 * counts of the reporter's `N passed, N failed` line, plus one failure per file the process never
 * finished (it crashed or was killed), and each file's wall time.
 */
function runBatch(job: Job, scratch: string, id: number): Promise<{ code: number; passed: number; failed: number; times: FileTime[] }> {
  const timesFile = path.join(scratch, `times-${id}.jsonl`);
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-isolation=none',
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(ROOT, 'test/reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(ROOT, 'test/file-times.mjs')}`,
    `--test-reporter-destination=${timesFile}`,
    path.join(ROOT, 'test/batch.ts'),
  ];
  const started = Date.now();
  return new Promise((resolve) => {
    const env = { ...job.phase.env, TEST_BATCH_FILES: JSON.stringify(job.files) };
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (exitCode, signal) => {
      const text = Buffer.concat(output).toString('utf8');
      const counts = [...text.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
      let code = exitCode ?? (signal ? 1 : 0);
      let failed = Number(counts?.[2] ?? 0);
      const times: FileTime[] = [];
      const finished = new Set<string>();
      for (const line of fs.existsSync(timesFile) ? fs.readFileSync(timesFile, 'utf8').split('\n') : []) {
        if (!line) continue;
        const entry = JSON.parse(line) as { file: string; seconds: number };
        finished.add(entry.file);
        times.push({ phase: job.phase.name, file: entry.file, seconds: entry.seconds });
      }
      const unfinished = job.files.filter((file) => !finished.has(file));
      let notes = '';
      for (const file of unfinished) notes += `✖ ${file} did not finish: its batch process ended (${signal ?? `exit code ${exitCode}`})\n`;
      failed += unfinished.length;
      if (unfinished.length > 0) code ||= 1;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n=== ${job.phase.name}: ${job.files.join(' ')} (${seconds} s)\n${text}${notes}`);
      resolve({ code, passed: Number(counts?.[1] ?? 0), failed, times });
    });
  });
}

/** Runs the jobs, at most `concurrency` at a time, each as soon as a place is free, in the order given. */
async function pool<T>(jobs: T[], concurrency: number, run: (job: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) await run(jobs[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
}

/**
 * The batches of a phase: each own-process file alone; the others, heaviest first (by size, the best
 * guess before they run), gathered into batches of about `target` bytes, so the lanes end close
 * together and one process's start serves several files.
 */
function batches(phase: Phase, files: string[], target: number): Job[] {
  const weight = (file: string) => fs.statSync(path.join(ROOT, file)).size;
  const source = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
  const jobs: Job[] = files
    .filter((file) => OWN_PROCESS.test(source(file)))
    .map((file) => ({ phase, files: [file], weight: weight(file) }));
  const shared = files.filter((file) => !OWN_PROCESS.test(source(file))).sort((a, b) => weight(b) - weight(a));
  let current: Job | undefined;
  for (const file of shared) {
    if (!current || current.weight >= target) {
      current = { phase, files: [], weight: 0 };
      jobs.push(current);
    }
    current.files.push(file);
    current.weight += weight(file);
  }
  return jobs;
}

/**
 * `tsc --noEmit` over the whole project (npm run typecheck): one test that passes or fails. It runs
 * beside the first batches; its output is printed when it ends.
 */
function typecheck(): Promise<{ code: number; passed: number; failed: number; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '--pretty', 'false'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (exitCode) => {
      const ok = exitCode === 0;
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(
        `\n=== typecheck: tsc --noEmit (npm run typecheck) (${seconds.toFixed(1)} s)\n${Buffer.concat(output).toString('utf8')}` +
          (ok ? '✔ the TypeScript compiler finds no error\n' : '✖ the TypeScript compiler finds errors (above)\n'),
      );
      resolve({ code: ok ? 0 : 1, passed: ok ? 1 : 0, failed: ok ? 0 : 1, seconds });
    });
  });
}

/** Where the time went: each phase's wall time, files and tests, and the twenty slowest files. */
function summaryTable(phases: Phase[], times: FileTime[], checked: { seconds: number } | undefined, total: number): string {
  const minutes = (seconds: number) => `${(seconds / 60).toFixed(1)} min`;
  const lines = ['', '=== where the time went', 'phase        wall       files  passed  failed'];
  if (checked) lines.push(`typecheck    ${minutes(checked.seconds).padEnd(9)}  ${'1'.padStart(5)}  ${'1'.padStart(6)}`);
  for (const phase of phases) {
    const wall = phase.started && phase.ended ? (phase.ended - phase.started) / 1000 : 0;
    lines.push(
      `${phase.name.padEnd(11)}  ${minutes(wall).padEnd(9)}  ${String(phase.files).padStart(5)}  ${String(phase.passed).padStart(6)}  ${String(phase.failed).padStart(6)}`,
    );
  }
  lines.push(`all          ${minutes(total)} (the phases overlap: PostgreSQL and PGlite share the lanes)`, '', 'the twenty slowest files:');
  for (const entry of [...times].sort((a, b) => b.seconds - a.seconds).slice(0, 20))
    lines.push(`${entry.seconds.toFixed(1).padStart(7)} s  ${entry.phase.padEnd(11)}  ${entry.file}`);
  return `${lines.join('\n')}\n`;
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
    // Three lanes on two cores: a batch waits on workflows, mail and child processes often enough that
    // a third keeps the cores busy (TEST_CONCURRENCY overrides).
    const concurrency = Number(process.env.TEST_CONCURRENCY ?? '3');
    const phase = (name: string, phaseEnv: NodeJS.ProcessEnv, count: number): Phase => ({
      name,
      env: phaseEnv,
      files: count,
      passed: 0,
      failed: 0,
    });
    const postgres = phase('PostgreSQL', env, onlyPglite ? 0 : files.length);
    const pglite = phase('PGlite', { ...env, TEST_DB_DRIVER: 'pglite' }, files.filter(onPglite).length);
    const reliability = phase('reliability', env, reliabilityFiles.length);
    // The PostgreSQL and PGlite phases share the lanes, heaviest batches first; the reliability files
    // (they kill and restart processes, and time it) run after them, one at a time.
    // A batch holds about a tenth of a lane's share of both phases (sizes in bytes, the best guess
    // before the files have run), so a PGlite batch, whose stack is the slowest to start, serves as
    // many files as a PostgreSQL one.
    const onPostgres = onlyPglite ? [] : files;
    const size = (file: string) => fs.statSync(path.join(ROOT, file)).size;
    const target = [...onPostgres, ...files.filter(onPglite)].reduce((sum, file) => sum + size(file), 0) / (concurrency * 10);
    const jobs = [...batches(postgres, onPostgres, target), ...batches(pglite, files.filter(onPglite), target)].sort(
      (a, b) => b.weight - a.weight,
    );
    let code = 0;
    const times: FileTime[] = [];
    let id = 0;
    const run = async (job: Job) => {
      job.phase.started ??= Date.now();
      const result = await runBatch(job, scratch, id++);
      job.phase.ended = Date.now();
      code ||= result.code;
      job.phase.passed += result.passed;
      job.phase.failed += result.failed;
      times.push(...result.times);
    };
    const begun = Date.now();
    // The whole suite (no filters) starts with the typecheck (tsx runs the tests without checking
    // types), in a lane of its own beside the first batches.
    const whole = filters.length === 0 && !onlyPglite && !onlyReliability;
    let checked: Awaited<ReturnType<typeof typecheck>> | undefined;
    const check = async () => {
      checked = await typecheck();
      code ||= checked.code;
    };
    await pool<Job | 'typecheck'>(whole ? ['typecheck', ...jobs] : jobs, concurrency, (job) => (job === 'typecheck' ? check() : run(job)));
    await pool(
      reliabilityFiles.map((file) => ({ phase: reliability, files: [file], weight: 0 })),
      Number(process.env.TEST_RELIABILITY_CONCURRENCY ?? '1'),
      run,
    );
    const phases = [postgres, pglite, reliability].filter((entry) => entry.files > 0);
    process.stdout.write(summaryTable(phases, times, checked, (Date.now() - begun) / 1000));
    const passed = phases.reduce((sum, entry) => sum + entry.passed, checked?.passed ?? 0);
    const failed = phases.reduce((sum, entry) => sum + entry.failed, checked?.failed ?? 0);
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    return code || (failed > 0 ? 1 : 0);
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
