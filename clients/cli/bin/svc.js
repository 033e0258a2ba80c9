#!/usr/bin/env node
// `svc`: runs the CLI's TypeScript source through tsx (a dependency), so the repository needs no build step.
const tsx = await import('tsx/esm/api').catch(() => {
  // `npm install -g ./clients/cli` links this folder: its dependencies are the checkout's, installed by `npm install` there.
  process.stderr.write(`svc: dependencies missing; run npm install in ${new URL('../../..', import.meta.url).pathname}\n`);
  process.exit(1);
});
tsx.register();
const { run } = await import('../src/main.ts');
process.exitCode = await run(process.argv.slice(2));
