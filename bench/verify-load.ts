// `npm run bench -- verify-load`: what twenty strangers posting hostile PDFs to POST /v1/verify cost a
// tenant. One API process of its own (`npm run api`; the worker is this process's) serves a tenant
// that creates and L2-signs documents, first alone (the reference), then while twenty strangers from
// twenty addresses post files made to cost a verifier the most (fifty signatures over an 8 MiB file;
// 150 000 objects with twenty revisions after a signature), each honouring Retry-After. Prints the
// tenant's latencies beside the idle ones and the API process's resident size (idle, and the kernel's
// peak). Needs BENCH_DATABASE_URL: two processes share one PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import { seedSamples, sentNda } from '../test/documents';
import { call } from '../test/http';
import { mandatedAccount } from '../test/principal';
import { startSmtpListener } from '../test/smtp';
import { manyRevisions, manySignatures } from '../test/verify-corpus/hostile';
import { corpusKeys } from '../test/verify-corpus/keys';
import { spawnService, startHarness } from './harness';
import { summarize } from './summary';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const STRANGERS = 20;
const MIB = 1024 * 1024;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function memory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

async function main() {
  if (!process.env.BENCH_DATABASE_URL) throw new Error('set BENCH_DATABASE_URL: the API process and this one share one PostgreSQL');
  const smtp = await startSmtpListener();
  const harness = await startHarness({ SMTP_URL: smtp.url, SVC_CODE_IP_LIMIT: '1000000', SVC_APPLY_WAIT_MS: '120000' });
  const api = await spawnService('api', { ...harness.env, SMTP_URL: smtp.url, SVC_TRUST_PROXY: 'true' });
  const keys = await corpusKeys();
  try {
    const hostile = [
      await manySignatures(keys.foreign, { count: 50, paddingBytes: 8 * MIB }),
      await manyRevisions(keys.foreign, { objects: 150_000, revisions: 20 }),
    ];
    const stack = { url: api.url!, deps: harness.deps, config: harness.deps.config, smtp } as Parameters<typeof seedSamples>[0];
    const { account, principal } = await mandatedAccount(stack, { name: 'Tenant under load' });
    const { nda } = await seedSamples(stack, account);

    /** ROUNDS documents created and sent (revision 0 sealed on the tenant's PDF threads), each L2-signed by the worker. */
    const tenantRounds = async () => {
      const created: number[] = [];
      const signed: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let started = performance.now();
        const document = await sentNda(stack, account, nda, principal, { name: `Bench ${round}` });
        created.push(performance.now() - started);
        started = performance.now();
        const reply = await call(api.url!, 'POST', `/v1/documents/${document.document_id}/sign`, {
          key: account.key,
          body: { reason: 'bench' },
        });
        if (reply.status !== 200 && reply.status !== 202) throw new Error(`sign: ${reply.status} ${reply.text}`);
        signed.push(performance.now() - started);
      }
      return { created, signed };
    };

    await tenantRounds(); // warm: threads started, code compiled
    const idleMemory = memory(api.child.pid!);
    const idle = await tenantRounds();

    let running = true;
    const verifies = { answered: 0, refused: 0 };
    const stranger = async (index: number) => {
      while (running) {
        const reply = await call(api.url!, 'POST', '/v1/verify', {
          raw: hostile[index % hostile.length],
          headers: { 'content-type': 'application/pdf', 'x-forwarded-for': `198.51.100.${index + 1}` },
        });
        if (reply.status === 429 || reply.status === 503) {
          verifies.refused++;
          await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after') ?? 1) * 1000));
        } else if (reply.status === 200 || reply.status === 422) verifies.answered++;
        else throw new Error(`verify: ${reply.status} ${reply.text}`);
      }
    };
    const strangers = Array.from({ length: STRANGERS }, (_, index) => stranger(index));
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the lane is full before the tenant starts
    const loaded = await tenantRounds();
    running = false;
    await Promise.all(strangers);
    const after = memory(api.child.pid!);

    const row = (label: string, under: number[], reference: number[]) => {
      const [p50, p95, r50, r95] = [
        percentile(under, 0.5),
        percentile(under, 0.95),
        percentile(reference, 0.5),
        percentile(reference, 0.95),
      ];
      return {
        path: `verify load: tenant ${label}, ${STRANGERS} hostile verifies at once`,
        measured: `p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`,
        reference: `idle: p50 ${r50.toFixed(0)} ms, p95 ${r95.toFixed(0)} ms`,
        ratio: `${(p50 / r50).toFixed(2)}x`,
        goal: 'succeeds; never queued behind a verify',
      };
    };
    const rows = [
      row('POST /v1/documents (create, send, seal revision 0)', loaded.created, idle.created),
      row('POST /v1/documents/:id/sign (L2 apply)', loaded.signed, idle.signed),
      {
        path: `verify load: API process RSS (${verifies.answered} verifies answered, ${verifies.refused} refused at once)`,
        measured: `peak ${(after.peak / MIB).toFixed(0)} MiB`,
        reference: `idle: ${(idleMemory.rss / MIB).toFixed(0)} MiB`,
        ratio: `${(after.peak / idleMemory.rss).toFixed(2)}x`,
        goal: '< 1536 MiB',
      },
    ];
    console.log(`verify-load benchmark: ${os.cpus().length} cores, PostgreSQL, the API a process of its own`);
    for (const entry of rows) console.log(`${entry.path}\n  ${entry.measured}   (${entry.reference}; ${entry.ratio})`);
    summarize(...rows);
  } finally {
    await keys.close();
    await api.stop();
    await harness.close();
    await smtp.close();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error.stack ?? error.message);
    process.exit(1);
  },
);
