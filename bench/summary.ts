// The one table `npm run bench` ends with: each benchmark hands its headline figures here, beside the
// reference it measured in the same run, and bench/run.ts prints them together.
import fs from 'node:fs';

export interface SummaryRow {
  path: string;
  measured: string;
  reference: string;
  ratio: string;
  goal: string;
}

/** Records rows for the closing table (a JSON line each in BENCH_SUMMARY_FILE, set by bench/run.ts). */
export function summarize(...rows: SummaryRow[]): void {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (!file) return;
  fs.appendFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** Rows as a table with ` | ` between columns, the header first. */
export function table(rows: SummaryRow[]): string[] {
  const header: SummaryRow = { path: 'path', measured: 'measured', reference: 'reference (same run)', ratio: 'ratio', goal: 'goal' };
  const keys = Object.keys(header) as Array<keyof SummaryRow>;
  const all = [header, ...rows];
  const widths = keys.map((key) => Math.max(...all.map((row) => row[key].length)));
  return all.map((row) =>
    keys
      .map((key, i) => row[key].padEnd(widths[i]))
      .join(' | ')
      .trimEnd(),
  );
}
