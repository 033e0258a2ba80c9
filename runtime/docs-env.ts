// `npm run docs:env`: writes the environment table of docs/configuration.md from lib/config/settings.ts,
// the one declaration of every variable (lib/config/settings.test.ts fails when the file differs from it).
import fs from 'node:fs';
import path from 'node:path';
import { ENV_TABLE_END, ENV_TABLE_START, environmentTable } from '../lib/config/settings';

const CONFIGURATION_DOC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'docs', 'configuration.md');

/** The document with its environment table (between the two markers) replaced by the generated one. */
export function withEnvironmentTable(readme: string): string {
  const start = readme.indexOf(ENV_TABLE_START);
  const end = readme.indexOf(ENV_TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/configuration.md has no environment table markers (${ENV_TABLE_START} … ${ENV_TABLE_END})`);
  return readme.slice(0, start) + environmentTable() + readme.slice(end + ENV_TABLE_END.length);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = fs.readFileSync(CONFIGURATION_DOC, 'utf8');
  const after = withEnvironmentTable(before);
  fs.writeFileSync(CONFIGURATION_DOC, after);
  console.log(
    before === after ? 'docs/configuration.md: the environment table was up to date' : 'docs/configuration.md: environment table written',
  );
}
