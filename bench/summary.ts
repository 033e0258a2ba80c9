// The one table `npm run bench` ends with: each benchmark hands its headline figures here, beside the
// reference it measured in the same run, and bench/run.ts prints them together under one line that
// states the settings they ran with.
import fs from 'node:fs';
import os from 'node:os';

/** What a benchmark ran with, stated beside its figures. */
export interface Settings {
  /** The benchmark's name (bench/<name>.ts). */
  bench: string;
  /** SVC_ENV of the service measured. */
  env: string;
  database: 'pglite' | 'postgres';
  rounds: number;
  warmup: number;
}

export interface SummaryRow {
  path: string;
  measured: string;
  reference: string;
  /** Interleaved benchmarks give the median ratio with its spread (bench/rounds.ts formatRatio). */
  ratio: string;
  goal: string;
  settings?: Settings;
}

/** Records rows for the closing table (a JSON line each in BENCH_SUMMARY_FILE, set by bench/run.ts). */
export function summarize(...rows: SummaryRow[]): void {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (!file) return;
  fs.appendFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** The goal with whether the median met it. */
export function goal(text: string, met: boolean): string {
  return `${text} — ${met ? 'met' : 'not met'}`;
}

const DATABASE = { pglite: 'PGlite (embedded)', postgres: 'PostgreSQL (BENCH_DATABASE_URL)' };

/**
 * One line of settings: SVC_ENV, Node, database, cores and CPU, rounds; where the benchmarks of a run
 * differ in one of them (fair-share runs as the tests do), each value with the paths it applies to.
 */
export function settingsLine(all: Settings[]): string {
  const part = (name: string, value: (settings: Settings) => string) => {
    const values = new Map<string, Set<string>>();
    for (const settings of all) values.set(value(settings), (values.get(value(settings)) ?? new Set()).add(settings.bench));
    if (values.size <= 1) return [...values.keys()].map((key) => `${name}${key}`);
    return [...values.entries()].map(([key, benches]) => `${name}${key} (${[...benches].join(', ')})`);
  };
  const cpu = os.cpus();
  return [
    ...part('SVC_ENV=', (s) => s.env),
    `Node ${process.versions.node}`,
    ...part('database ', (s) => DATABASE[s.database]),
    `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'})`,
    ...part('', (s) => `${s.rounds} rounds after ${s.warmup} warm-up pair${s.warmup === 1 ? '' : 's'}`),
  ].join(', ');
}

const HEADER = { path: 'path', measured: 'measured', reference: 'reference (same run)', ratio: 'ratio', goal: 'goal' };

/** Rows as a table with ` | ` between columns, the header first (a benchmark may name its columns its own way). */
export function table(rows: SummaryRow[], names: Partial<typeof HEADER> = {}): string[] {
  const header = { ...HEADER, ...names };
  const keys = Object.keys(header) as Array<keyof typeof header>;
  const all = [header, ...rows];
  const widths = keys.map((key) => Math.max(...all.map((row) => row[key].length)));
  return all.map((row) =>
    keys
      .map((key, i) => row[key].padEnd(widths[i]))
      .join(' | ')
      .trimEnd(),
  );
}
