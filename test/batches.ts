// npm test's batches (docs/testing.md): how test/run.ts groups files into batches, runs a batch in one
// process (test/batch.ts), shares the lanes among batches, and reports where the time went.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** A file that must run in a process of its own says why on a line `// Own process: …` at its top. */
export const OWN_PROCESS = /^\/\/ Own process: /m;

export interface Phase {
  name: string;
  env: NodeJS.ProcessEnv;
  /** Wall time: the first of its jobs started to the last ended. */
  started?: number;
  ended?: number;
  files: number;
  passed: number;
  failed: number;
}

export interface Job {
  phase: Phase;
  files: string[];
  weight: number;
}

export interface FileTime {
  phase: string;
  file: string;
  seconds: number;
}

/**
 * Runs one batch of test files in one process (test/batch.ts under node's test runner with
 * --test-isolation=none): the files one after another on the process's shared stack. Its output is
 * held and printed whole when it ends, so batches running side by side do not interleave. Answers the
 * counts of the reporter's `N passed, N failed` line and each file's wall time (test/batch.ts writes
 * them as each file ends). A process that ended before that line (it crashed, or was killed) fails the
 * batch, and every file it had not finished is failed by name.
 */
export function runBatch(
  job: Job,
  scratch: string,
  id: number,
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<{ code: number; passed: number; failed: number; times: FileTime[] }> {
  const timesFile = path.join(scratch, `times-${id}.jsonl`);
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-isolation=none',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(ROOT, 'test/reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    path.join(ROOT, 'test/batch.ts'),
  ];
  const started = Date.now();
  return new Promise((resolve) => {
    const env = { ...job.phase.env, TEST_BATCH_FILES: JSON.stringify(job.files), TEST_BATCH_TIMES: timesFile };
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    // Its tests are over once the closing count is out; a process that a leaked handle keeps alive
    // after that is ended, and the run says so (no --test-force-exit: it can cut the count off).
    let lingering: NodeJS.Timeout | undefined;
    let lingered = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output.push(chunk);
      if (!lingering && /^\d+ passed, \d+ failed$/m.test(Buffer.concat(output.slice(-2)).toString('utf8')))
        lingering = setTimeout(() => {
          lingered = true;
          child.kill('SIGKILL');
        }, 60_000);
    });
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (exitCode, signal) => {
      clearTimeout(lingering);
      const text = Buffer.concat(output).toString('utf8');
      const counts = [...text.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
      let code = exitCode ?? (signal ? 1 : 0);
      let failed = Number(counts?.[2] ?? 0);
      const times: FileTime[] = [];
      for (const line of fs.existsSync(timesFile) ? fs.readFileSync(timesFile, 'utf8').split('\n') : []) {
        if (!line) continue;
        const entry = JSON.parse(line) as { file: string; seconds: number };
        times.push({ phase: job.phase.name, file: entry.file, seconds: entry.seconds });
      }
      let notes = '';
      if (lingered) {
        notes += '✖ the batch process had not exited 60 s after its tests: something it started is still running\n';
        failed += 1;
        code ||= 1;
      } else if (!counts) {
        const finished = new Set(times.map((time) => time.file));
        const unfinished = job.files.filter((file) => !finished.has(file));
        const how = signal ?? `exit code ${exitCode}`;
        notes += `✖ the batch process ended (${how}) before its closing count: the tests of the files it finished are not counted\n`;
        for (const file of unfinished) notes += `✖ ${file} did not finish: its batch process ended (${how})\n`;
        failed += Math.max(1, unfinished.length);
        code ||= 1;
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      print(`\n=== ${job.phase.name}: ${job.files.join(' ')} (${seconds} s)\n${text}${notes}`);
      resolve({ code, passed: Number(counts?.[1] ?? 0), failed, times });
    });
  });
}

/**
 * Runs the jobs, at most `concurrency` at a time, each as soon as a place is free, in the order given;
 * the first lane to find none left runs `then` (while the others finish theirs).
 */
export async function pool<T>(jobs: T[], concurrency: number, run: (job: T) => Promise<void>, then?: () => Promise<void>): Promise<void> {
  let next = 0;
  let thenStarted = false;
  const lane = async () => {
    while (next < jobs.length) await run(jobs[next++]);
    if (then && !thenStarted) {
      thenStarted = true;
      await then();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
}

/**
 * What a file is expected to cost, in seconds: its time in test/durations.json (a run's per-file times,
 * which `npm test` writes to tmp/test-durations.json; copy it over to refresh the order), else its
 * size at the median seconds per byte of the files that have a time.
 */
export function fileWeights(durationsFile = path.join(ROOT, 'test/durations.json')): (phase: string, file: string) => number {
  const known: Record<string, Record<string, number>> = fs.existsSync(durationsFile)
    ? JSON.parse(fs.readFileSync(durationsFile, 'utf8'))
    : {};
  const size = (file: string) => fs.statSync(path.join(ROOT, file)).size;
  const ratios = Object.values(known)
    .flatMap((times) => Object.entries(times))
    .filter(([file]) => fs.existsSync(path.join(ROOT, file)))
    .map(([file, seconds]) => seconds / size(file))
    .sort((a, b) => a - b);
  const perByte = ratios.length > 0 ? ratios[Math.floor(ratios.length / 2)] : 1 / 1000;
  return (phase, file) => known[phase]?.[file] ?? size(file) * perByte;
}

/**
 * The batches of a phase: each own-process file alone; the others, heaviest first (fileWeights),
 * gathered into batches of about `target` seconds, so the lanes end close together and one process's
 * start serves several files.
 */
export function batches(phase: Phase, files: string[], target: number, weights = fileWeights()): Job[] {
  const weight = (file: string) => weights(phase.name, file);
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

/** The TypeScript projects the typecheck runs: the service, and the browser's scripts (checkJs, api/app/browser/tsconfig.json). */
const TYPECHECKED = ['tsconfig.json', 'api/app/browser/tsconfig.json'];

/**
 * `tsc --noEmit` over the whole project and over the browser's scripts (npm run typecheck): one test
 * that passes or fails. It runs beside the first batches; its output is printed when it ends.
 */
export async function typecheck(): Promise<{ code: number; passed: number; failed: number; seconds: number }> {
  const started = Date.now();
  const runs = await Promise.all(TYPECHECKED.map((project) => tsc(project)));
  const ok = runs.every((run) => run.ok);
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `\n=== typecheck: tsc --noEmit -p ${TYPECHECKED.join(', -p ')} (npm run typecheck) (${seconds.toFixed(1)} s)\n${runs.map((run) => run.output).join('')}` +
      (ok ? '✔ the TypeScript compiler finds no error\n' : '✖ the TypeScript compiler finds errors (above)\n'),
  );
  return { code: ok ? 0 : 1, passed: ok ? 1 : 0, failed: ok ? 0 : 1, seconds };
}

function tsc(project: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '--pretty', 'false', '-p', project], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (exitCode) => resolve({ ok: exitCode === 0, output: Buffer.concat(output).toString('utf8') }));
  });
}

/** Where the time went: each phase's wall time, files and tests, and the twenty slowest files. */
export function summaryTable(phases: Phase[], times: FileTime[], checked: { seconds: number } | undefined, total: number): string {
  const minutes = (seconds: number) => `${(seconds / 60).toFixed(1)} min`;
  const lines = ['', '=== where the time went', 'phase        wall       files  passed  failed'];
  if (checked) lines.push(`typecheck    ${minutes(checked.seconds).padEnd(9)}  ${'1'.padStart(5)}  ${'1'.padStart(6)}`);
  for (const phase of phases) {
    const wall = phase.started && phase.ended ? (phase.ended - phase.started) / 1000 : 0;
    lines.push(
      `${phase.name.padEnd(11)}  ${minutes(wall).padEnd(9)}  ${String(phase.files).padStart(5)}  ${String(phase.passed).padStart(6)}  ${String(phase.failed).padStart(6)}`,
    );
  }
  lines.push(`all          ${minutes(total)} (the phases overlap: they share the lanes)`, '', 'the twenty slowest files:');
  for (const entry of [...times].sort((a, b) => b.seconds - a.seconds).slice(0, 20))
    lines.push(`${entry.seconds.toFixed(1).padStart(7)} s  ${entry.phase.padEnd(11)}  ${entry.file}`);
  return `${lines.join('\n')}\n`;
}
