#!/usr/bin/env node
// `svc-mcp`: the MCP server over stdio, run from its TypeScript source through tsx (a dependency).
const tsx = await import('tsx/esm/api').catch(() => {
  // `npm install -g ./clients/mcp` links this folder: its dependencies are the checkout's, installed by `npm install` there.
  process.stderr.write(`svc-mcp: dependencies missing; run npm install in ${new URL('../../..', import.meta.url).pathname}\n`);
  process.exit(1);
});
tsx.register();
await import('../src/stdio.ts');
