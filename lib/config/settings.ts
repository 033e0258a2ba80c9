import { z } from 'zod';
import type { Setting } from './settings/kinds';
import { OPERATION_SETTINGS } from './settings/operation';
import { SERVICE_SETTINGS } from './settings/service';
import { TIMING_SETTINGS } from './settings/timing';

/**
 * Every environment variable the service reads, declared once: its schema (type, bounds, default),
 * what its default means when the schema's default does not say it (`shown`), and what it does
 * (`doc`). `loadConfig` (config.ts) parses the environment with these schemas and maps the result to
 * `Config`; docs/configuration.md's environment table is generated from this table (`npm run docs:env`) and
 * checked against it by lib/config/settings.test.ts. Entries without a schema are read elsewhere
 * (feature flags: flags.ts; tracing's OTEL_SDK_DISABLED; the tools' cache) and listed for the table.
 * The order is the table's in docs/configuration.md.
 */
export const SETTINGS = { ...SERVICE_SETTINGS, ...TIMING_SETTINGS, ...OPERATION_SETTINGS };

type Table = typeof SETTINGS;
type WithSchema = { [K in keyof Table]: Table[K] extends { schema: z.ZodType } ? K : never }[keyof Table];

/** The environment's schema: every entry of SETTINGS that has one. */
export const EnvSchema = z.object(
  Object.fromEntries(
    Object.entries(SETTINGS as Record<string, Setting>).flatMap(([name, setting]) => (setting.schema ? [[name, setting.schema]] : [])),
  ) as { [K in WithSchema]: Table[K] extends { schema: infer S extends z.ZodType } ? S : never },
);

/** What the default column says for a variable: `shown`, else the schema's default, else (unset). */
export function shownDefault(setting: Setting): string {
  if (setting.shown) return setting.shown;
  const parsed = setting.schema?.safeParse(undefined);
  if (!parsed?.success || parsed.data === undefined) return '(unset)';
  return `\`${Array.isArray(parsed.data) ? parsed.data.join(',') : String(parsed.data)}\``;
}

export const ENV_TABLE_START = '<!-- environment table: generated from lib/config/settings.ts by `npm run docs:env` -->';
export const ENV_TABLE_END = '<!-- end of the environment table -->';

/** The environment table of docs/configuration.md, one row per variable. */
export function environmentTable(): string {
  const rows = Object.entries(SETTINGS as Record<string, Setting>).map(
    ([name, setting]) => `| \`${name}\` | ${shownDefault(setting)} | ${setting.doc} |`,
  );
  return [ENV_TABLE_START, '', '| variable | default | meaning |', '|---|---|---|', ...rows, '', ENV_TABLE_END].join('\n');
}
