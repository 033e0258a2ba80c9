// `npm run bench -- <name>`: runs bench/<name>.ts (every benchmark when no name is given).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const all = fs
  .readdirSync(here)
  .filter((file) => file.endsWith('.ts') && !['run.ts', 'harness.ts'].includes(file))
  .map((file) => file.replace(/\.ts$/, ''));
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`no benchmark ${name}; there are: ${all.join(', ')}`);
    process.exit(2);
  }
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, `${name}.ts`)], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
