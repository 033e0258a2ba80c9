#!/usr/bin/env node
// `svc`: runs the CLI's TypeScript source through tsx (a dependency), so the repository needs no build step.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/main.ts');
process.exitCode = await run(process.argv.slice(2));
