// The test run (npm test; docs/testing.md): one Temporal dev server and one workflow bundle for every
// test file (and one MinIO server when a chosen file uses a test bucket, pdfcpu when one validates PDFs
// with it), then node's test runner over every *.test.ts on PostgreSQL, the files marked ALSO_ON_PGLITE
// again on embedded PGlite, and after them the reliability files (test/reliability/) one at a time.
// The files run in batches, several to a process (test/batch.ts) sharing its stack, in three lanes; a
// file with a line `// Own process: <why>` at its top has a process to itself. Arguments narrow the run
// to matching files; --reliability runs the reliability files alone, --pglite the PGlite phase alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCompose } from '../runtime/compose';
import { startDevServer } from '../runtime/dev-server';
import { ensureMinio, type RunningMinio, startMinio } from '../runtime/minio';
import { ensurePdfcpu } from '../runtime/pdfcpu';
import { ensureTemporalCli } from '../runtime/temporal-cli';
import { bundleWorkflows } from '../worker/worker';
import { batches, type FileTime, fileWeights, type Job, type Phase, pool, runBatch, summaryTable, typecheck } from './batches';
import { createTemplates } from './db';
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

/** This run's per-file seconds in tmp/test-durations.json, the form test/durations.json takes. */
function writeDurations(times: FileTime[]): void {
  const durations: Record<string, Record<string, number>> = {};
  for (const { phase, file, seconds } of times) {
    durations[phase] ??= {};
    durations[phase][file] = Math.round(seconds * 10) / 10;
  }
  fs.mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'tmp', 'test-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
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
  let templates: Awaited<ReturnType<typeof createTemplates>> | undefined;
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
    // The databases' templates, migrated once for the run (test/db.ts createTemplates).
    templates = await createTemplates({ pglite: files.some(onPglite) });
    Object.assign(env, templates.env);
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
    // The PostgreSQL and PGlite phases share the lanes, heaviest batches first. A batch holds about a
    // tenth of a lane's share of both (test/batches.ts fileWeights: the seconds of an earlier run), so
    // a PGlite batch, whose stack is the slowest to start, serves as many files as a PostgreSQL one.
    const onPostgres = onlyPglite ? [] : files;
    const weights = fileWeights();
    const total =
      onPostgres.reduce((sum, file) => sum + weights(postgres.name, file), 0) +
      files.filter(onPglite).reduce((sum, file) => sum + weights(pglite.name, file), 0);
    const target = total / (concurrency * 10);
    const jobs = [...batches(postgres, onPostgres, target, weights), ...batches(pglite, files.filter(onPglite), target, weights)].sort(
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
    // The reliability files run one at a time (TEST_RELIABILITY_CONCURRENCY), in the first lane that
    // finds no batch left: while the last batches end, not beside every lane at its busiest.
    const reliabilityJobs = reliabilityFiles.map((file): Job => ({ phase: reliability, files: [file], weight: 0 }));
    let reliabilityRun: Promise<void> | undefined;
    const runReliability = () => (reliabilityRun ??= pool(reliabilityJobs, Number(process.env.TEST_RELIABILITY_CONCURRENCY ?? '1'), run));
    await pool<Job | 'typecheck'>(
      whole ? ['typecheck', ...jobs] : jobs,
      concurrency,
      (job) => (job === 'typecheck' ? check() : run(job)),
      runReliability,
    );
    await runReliability();
    const phases = [postgres, pglite, reliability].filter((entry) => entry.files > 0);
    writeDurations(times);
    process.stdout.write(summaryTable(phases, times, checked, (Date.now() - begun) / 1000));
    const passed = phases.reduce((sum, entry) => sum + entry.passed, checked?.passed ?? 0);
    const failed = phases.reduce((sum, entry) => sum + entry.failed, checked?.failed ?? 0);
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    return code || (failed > 0 ? 1 : 0);
  } finally {
    await templates?.drop().catch(() => undefined);
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
