import cliProgress from 'cli-progress';

/** How a command prints: JSON for scripts (--json), readable lines and tables otherwise. */
export interface Output {
  json: boolean;
  /** The result of a command: JSON as is, or the given human rendering. */
  result(value: unknown, human?: () => string): void;
  /** A table of rows (objects) with the given columns, or the JSON of the rows. */
  table<T extends object>(rows: T[], columns: Array<keyof T & string>, raw?: unknown): void;
  /** A progress bar on a terminal (stderr), nothing when piped or with --json; it counts bytes unless told items. */
  progress(label: string, total: number | undefined, unit?: 'bytes' | 'items'): { update(done: number): void; stop(): void };
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function renderTable<T extends object>(rows: T[], columns: Array<keyof T & string>): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((column) => cell(row[column]).replace(/\s+/g, ' ')));
  const widths = columns.map((column, index) => Math.min(60, Math.max(column.length, ...cells.map((line) => line[index].length))));
  const line = (values: string[]) =>
    values
      .map((value, index) => (value.length > widths[index] ? `${value.slice(0, widths[index] - 1)}…` : value.padEnd(widths[index])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.toUpperCase())), ...cells.map(line)].join('\n');
}

export interface Streams {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

export function createOutput(json: boolean, streams: Streams = { out: process.stdout, err: process.stderr }): Output {
  const print = (text: string) => streams.out.write(`${text}\n`);
  return {
    json,
    result(value, human) {
      print(json || !human ? JSON.stringify(value, null, 2) : human());
    },
    table(rows, columns, raw) {
      print(json ? JSON.stringify(raw ?? rows, null, 2) : renderTable(rows, columns));
    },
    progress(label, total, unit = 'bytes') {
      if (json || !streams.err.isTTY) return { update: () => undefined, stop: () => undefined };
      const amount = (value: number) => (unit === 'bytes' ? humanBytes(value) : String(value));
      const bar = new cliProgress.SingleBar(
        {
          format: `${label} [{bar}] {percentage}% {done}/{all}`,
          stream: streams.err,
          hideCursor: true,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total ?? 0, 0, { done: amount(0), all: total === undefined ? '?' : amount(total) });
      return {
        update(done) {
          bar.update(done, { done: amount(done), all: total === undefined ? '?' : amount(total) });
        },
        stop() {
          bar.stop();
        },
      };
    },
  };
}
