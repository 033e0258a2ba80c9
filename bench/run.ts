// `npm run bench -- <name>`: runs bench/<name>.ts (every benchmark when no name is given), then prints
// one table of the headline figures, each beside its reference from the same run, with the ratio.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SummaryRow, settingsLine, table } from './summary';

const here = path.dirname(new URL(import.meta.url).pathname);
/** Modules that are not benchmarks: the runner, its helpers, the read profiler (run on its own) and its reference, the webhook receiver. */
const NOT_BENCHMARKS = ['run.ts', 'harness.ts', 'rounds.ts', 'summary.ts', 'profile-reads.ts', 'bare-read.ts', 'receiver-process.ts'];
const all = fs
  .readdirSync(here)
  .filter((file) => file.endsWith('.ts') && !NOT_BENCHMARKS.includes(file))
  .map((file) => file.replace(/\.ts$/, ''));
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all;
const summaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-')), 'summary.jsonl');
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`no benchmark ${name}; there are: ${all.join(', ')}`);
    process.exit(2);
  }
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, `${name}.ts`)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_SUMMARY_FILE: summaryFile },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
const rows: SummaryRow[] = fs.existsSync(summaryFile)
  ? fs
      .readFileSync(summaryFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
fs.rmSync(path.dirname(summaryFile), { recursive: true, force: true });
if (rows.length > 0) {
  const settings = rows.flatMap((row) => (row.settings ? [row.settings] : []));
  console.log(`\nsummary: ${settingsLine(settings)}`);
  if (!process.env.BENCH_DATABASE_URL) console.log('(PGlite: set BENCH_DATABASE_URL for the figures that count)');
  for (const line of table(rows)) console.log(line);
}
