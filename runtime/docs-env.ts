// `npm run docs:env`: writes the README's environment table from lib/config/settings.ts, the one
// declaration of every variable (lib/config/settings.test.ts fails when the README differs from it).
import fs from 'node:fs';
import path from 'node:path';
import { ENV_TABLE_END, ENV_TABLE_START, environmentTable } from '../lib/config/settings';

const README = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'README.md');

/** The README with its environment table (between the two markers) replaced by the generated one. */
export function withEnvironmentTable(readme: string): string {
  const start = readme.indexOf(ENV_TABLE_START);
  const end = readme.indexOf(ENV_TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no environment table markers (${ENV_TABLE_START} … ${ENV_TABLE_END})`);
  return readme.slice(0, start) + environmentTable() + readme.slice(end + ENV_TABLE_END.length);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = fs.readFileSync(README, 'utf8');
  const after = withEnvironmentTable(before);
  fs.writeFileSync(README, after);
  console.log(before === after ? 'README.md: the environment table was up to date' : 'README.md: environment table written');
}
