// `node --import tsx bench/profile-reads.ts`: a CPU profile of the service answering GET /v1/documents/:id
// under load (autocannon, 50 connections, 5 s), summarised by self time per function (top 25);
// the .cpuprofile is written beside for a closer look (Chrome DevTools, speedscope).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { seedSamples } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { startHarness } from './harness';

const here = path.dirname(new URL(import.meta.url).pathname);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

async function main() {
  const harness = await startHarness({ LOG_LEVEL: 'error' });
  try {
    const owner = await createAccount(harness.deps.db, { plan: 'business' });
    const stack = { url: harness.url, deps: harness.deps, config: harness.deps.config } as Parameters<typeof seedSamples>[0];
    const { nda } = await seedSamples(stack, owner);
    const created = await call(harness.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: { template_id: nda.id, name: 'profile', signers: [{ name: 'Ann', email: 'ann-profile@example.test' }] },
    });
    const url = `${harness.url}/v1/documents/${created.body.document_id}`;
    const run = (seconds: number) =>
      promisify(execFile)(
        path.join(here, '..', 'node_modules', '.bin', 'autocannon'),
        ['-c', '50', '-d', String(seconds), '-j', '-H', `authorization=Bearer ${owner.key}`, url],
        { maxBuffer: 64 * 1024 * 1024 },
      );
    await run(2);
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const { stdout } = await run(5);
    const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
    const file = path.join(process.cwd(), `reads-${Date.now()}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    const report = JSON.parse(stdout);
    console.log(`${report.requests.average} req/s, p99 ${report.latency.p99} ms; profile in ${file}`);
    const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0);
    const byFunction = new Map<string, number>();
    const byPackage = new Map<string, number>();
    for (const node of profile.nodes) {
      const { functionName, url: source, lineNumber } = node.callFrame;
      const short = source.replace(/^file:\/\//, '').replace(process.cwd(), '.');
      const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.hitCount);
      const pkg =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(short)?.[1] ?? (short.startsWith('.') ? short.split('/')[1] : short || functionName);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.hitCount);
    }
    const top = (map: Map<string, number>, n: number) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([key, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`)
        .join('\n');
    console.log(`self time by package or folder:\n${top(byPackage, 20)}\n\nself time by function:\n${top(byFunction, 25)}`);
  } finally {
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
