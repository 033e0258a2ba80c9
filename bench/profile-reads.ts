// `node --import tsx bench/profile-reads.ts`: CPU profiles of GET /v1/documents/:id under load
// (autocannon, 50 connections, 5 s) and of the bare reference (bench/bare-read.ts) in the same process,
// the reference first. Self time per package or folder and per function, as a share of the profile and
// in CPU µs per request, so what the service spends beyond the bare handler reads directly; the
// .cpuprofile files are written beside for a closer look (Chrome DevTools, speedscope).
// BENCH_PROFILE=service profiles only the service.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { seedSamples } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { bareKoa } from './bare-read';
import { AS_DEPLOYED, startHarness } from './harness';

const here = path.dirname(new URL(import.meta.url).pathname);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

interface Profiled {
  name: string;
  rps: number;
  p99: number;
  requests: number;
  /** CPU µs per sample (the profile's span over its samples). */
  usPerHit: number;
  total: number;
  byFunction: Map<string, number>;
  byPackage: Map<string, number>;
}

const add = (map: Map<string, number>, key: string, hits: number) => map.set(key, (map.get(key) ?? 0) + hits);

async function profiled(name: string, url: string, headers: string[]): Promise<Profiled> {
  const run = (seconds: number) =>
    promisify(execFile)(
      path.join(here, '..', 'node_modules', '.bin', 'autocannon'),
      ['-c', '50', '-d', String(seconds), '-j', ...headers, url],
      { maxBuffer: 64 * 1024 * 1024 },
    );
  await run(2);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const { stdout } = await run(5);
  const { profile } = (await session.post('Profiler.stop')) as {
    profile: { nodes: ProfileNode[]; startTime: number; endTime: number };
  };
  session.disconnect();
  const file = path.join(process.cwd(), `reads-${name}-${Date.now()}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  const report = JSON.parse(stdout);
  const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url: source, lineNumber } = node.callFrame;
    const short = source.replace(/^file:\/\//, '').replace(process.cwd(), '.');
    add(byFunction, `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`, node.hitCount);
    const pkg =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(short)?.[1] ?? (short.startsWith('.') ? short.split('/')[1] : short || functionName);
    add(byPackage, pkg, node.hitCount);
  }
  console.log(`${name}: ${report.requests.average} req/s, p99 ${report.latency.p99} ms; profile in ${file}`);
  return {
    name,
    rps: report.requests.average,
    p99: report.latency.p99,
    requests: report.requests.total,
    usPerHit: (profile.endTime - profile.startTime) / total,
    total,
    byFunction,
    byPackage,
  };
}

/** The top `n` keys of the first profile, each as % of its profile and CPU µs per request in every profile. */
function table(title: string, pick: (p: Profiled) => Map<string, number>, profiles: Profiled[], n: number): string {
  const [first] = profiles;
  const perRequest = (p: Profiled, hits: number) => ((hits * p.usPerHit) / p.requests).toFixed(1).padStart(7);
  const head = `${title} (% of its profile, CPU µs per request: ${profiles.map((p) => p.name).join(' | ')})`;
  const rows = [...pick(first)]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, hits]) => {
      const figures = profiles.map((p) => perRequest(p, pick(p).get(key) ?? 0)).join(' |');
      return `${((hits / first.total) * 100).toFixed(1).padStart(5)}% ${figures}  ${key}`;
    });
  return [head, ...rows].join('\n');
}

async function main() {
  const harness = await startHarness({ LOG_LEVEL: 'error', ...AS_DEPLOYED });
  try {
    const owner = await createAccount(harness.deps.db, { plan: 'business' });
    const stack = { url: harness.url, deps: harness.deps, config: harness.deps.config } as Parameters<typeof seedSamples>[0];
    const { nda } = await seedSamples(stack, owner);
    const created = await call(harness.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: { template_id: nda.id, name: 'profile', signers: [{ name: 'Ann', email: 'ann-profile@example.test' }] },
    });
    const id = created.body.document_id as string;
    const profiles: Profiled[] = [];
    if (process.env.BENCH_PROFILE !== 'service') {
      const bare = await bareKoa(process.env.BENCH_DATABASE_URL, harness.deps.config.dataDir);
      profiles.push(await profiled('bare', `${bare.url}/documents/${id}`, []));
      await bare.close();
    }
    profiles.unshift(await profiled('service', `${harness.url}/v1/documents/${id}`, ['-H', `authorization=Bearer ${owner.key}`]));
    const busy = (p: Profiled) => ((p.total - (p.byPackage.get('(idle)') ?? 0)) * p.usPerHit) / p.requests;
    console.log(`busy CPU per request: ${profiles.map((p) => `${p.name} ${busy(p).toFixed(0)} µs`).join(', ')}\n`);
    console.log(`${table('self time by package or folder', (p) => p.byPackage, profiles, 22)}\n`);
    console.log(table('self time by function', (p) => p.byFunction, profiles, 30));
  } finally {
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
