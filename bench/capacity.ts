// `npm run bench -- capacity`: what one API process and one worker process sustain on this machine,
// and two of each against the same PostgreSQL and Temporal (the production topology: `npm run api`
// and `npm run worker` as processes of their own): reads of a document, L2 applies, and webhook
// deliveries. The figures go into docs/operations.md's capacity table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeEvent } from '../activities/events/outbox';
import { createWebhook } from '../activities/webhooks/webhooks';
import { ensureSealFile } from '../runtime/seal-cert';
import { seedSamples, sentNda } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { mandatedAccount } from '../test/principal';
import { Receiver, selfSignedCertificate } from '../test/receiver';
import { type SmtpListener, startSmtpListener } from '../test/smtp';
import { AS_DEPLOYED, autocannon, type Harness, type Service, spawnService, startHarness } from './harness';
import { summarize } from './summary';

const SECONDS = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** L2 applies per topology, 20 per mandate (the daily cap is 25). */
const APPLIES = Number(process.env.BENCH_APPLIES ?? 60);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);

async function waitForPollers(url: string, count: number): Promise<void> {
  for (let i = 0; i < 1200; i += 1) {
    const health = await call(url, 'GET', '/v1/health').catch(() => undefined);
    if ((health?.body?.worker?.pollers ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${count} workers poll the task queue`);
}

interface Figures {
  reads: { rps: number; p99: number };
  applies: { perSecond: number; p50: number; ok: number };
  webhooks: { perSecond: number; lost: number };
}

async function measure(
  harness: Harness,
  smtp: SmtpListener,
  tls: ReturnType<typeof selfSignedCertificate>,
  replicas: number,
): Promise<Figures> {
  const { deps } = harness;
  const stack = { url: harness.url, deps, config: deps.config, smtp } as Parameters<typeof seedSamples>[0];
  const env = { ...harness.env, SMTP_URL: smtp.url };
  const services: Service[] = [];
  try {
    for (let i = 0; i < replicas; i += 1) services.push(await spawnService('worker', env));
    const apis: Service[] = [];
    for (let i = 0; i < replicas; i += 1) apis.push(await spawnService('api', env));
    services.push(...apis);
    const urls = apis.map((api) => api.url!);
    // The in-process worker of the harness is off: only the spawned ones poll (plus none of the harness).
    await waitForPollers(urls[0], replicas);

    // Reads: one document, CONNECTIONS connections spread over the APIs at once.
    const owner = await createAccount(deps.db);
    const templates = await seedSamples({ ...stack, url: urls[0] }, owner);
    const readable = await sentNda({ ...stack, url: urls[0] }, owner, templates.nda, {
      name: 'Reader',
      email: `reader-${Date.now()}@example.test`,
    });
    const path = `/v1/documents/${readable.document_id}`;
    const auth = { authorization: `Bearer ${owner.key}` };
    await Promise.all(urls.map((url) => autocannon(`${url}${path}`, auth, 2, Math.ceil(CONNECTIONS / urls.length))));
    const loads = await Promise.all(urls.map((url) => autocannon(`${url}${path}`, auth, SECONDS, Math.ceil(CONNECTIONS / urls.length))));
    const reads = { rps: loads.reduce((sum, load) => sum + load.rps, 0), p99: Math.max(...loads.map((load) => load.p99)) };

    // Applies: L2 signs by several mandates at once, alternating over the APIs.
    const jobs: Array<{ key: string; documentId: string }> = [];
    for (let m = 0; m < Math.ceil(APPLIES / 20); m += 1) {
      const { account, principal } = await mandatedAccount(stack, { name: `Capacity ${replicas}-${m}` });
      for (let d = 0; d < 20 && jobs.length < APPLIES; d += 1) {
        const document = await sentNda(stack, owner, templates.nda, { name: principal.name, email: principal.email });
        jobs.push({ key: account.key, documentId: document.document_id });
      }
    }
    const latencies: number[] = [];
    const started = performance.now();
    const answers = await Promise.all(
      jobs.map(async (job, i) => {
        const sent = performance.now();
        const reply = await call(urls[i % urls.length], 'POST', `/v1/documents/${job.documentId}/sign`, {
          key: job.key,
          body: { reason: 'capacity benchmark' },
        });
        latencies.push(performance.now() - sent);
        return reply.status;
      }),
    );
    const appliesMs = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const applies = {
      perSecond: (jobs.length / appliesMs) * 1000,
      p50: latencies[Math.floor(latencies.length / 2)],
      ok: answers.filter((status) => status === 200).length,
    };

    // Webhooks: EVENTS events committed at once to one HTTPS receiver.
    const receiver = await new Receiver(tls).start();
    try {
      const hooked = await createAccount(deps.db);
      await createWebhook({ db: deps.db, secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts }, hooked.tenantId, {
        url: receiver.url,
      });
      const ids: string[] = [];
      await deps.db.transaction(async (trx) => {
        for (let j = 0; j < EVENTS; j += 1) ids.push((await writeEvent(trx, hooked.tenantId, 'document.signed', { n: j })).id);
      });
      const committed = Date.now();
      const unique = () => new Set(receiver.received.map((entry) => entry.headers['x-webhook-id'])).size;
      const deadline = Date.now() + 5 * 60_000;
      while (unique() < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const last = Math.max(...receiver.received.map((entry) => entry.at));
      const received = new Set(receiver.received.map((entry) => String(entry.headers['x-webhook-id'])));
      return {
        reads,
        applies,
        webhooks: { perSecond: (EVENTS / (last - committed)) * 1000, lost: ids.filter((id) => !received.has(id)).length },
      };
    } finally {
      await receiver.stop();
    }
  } finally {
    for (const service of services.reverse()) await service.stop();
  }
}

async function main() {
  if (!process.env.BENCH_DATABASE_URL) throw new Error('set BENCH_DATABASE_URL: several processes share one PostgreSQL');
  const smtp = await startSmtpListener();
  const tls = selfSignedCertificate();
  // As deployed (SVC_ENV=production: no test-only response checks), with the local SMTP listener and
  // receiver, and one seal certificate for every process (production refuses to make one per process).
  const sealFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-seal-')), 'seal.p12');
  await ensureSealFile(sealFile, 'bench');
  const harness = await startHarness(
    {
      ...AS_DEPLOYED,
      SVC_SIGNING_P12: sealFile,
      SVC_SIGNING_P12_PASSPHRASE: 'bench',
      // Production defaults L2 signing off; a deployment that sells it turns it on, as here.
      SVC_FF_L2_SIGNING: 'true',
      SMTP_URL: smtp.url,
      SVC_CODE_IP_LIMIT: '1000000',
      SVC_APPLY_WAIT_MS: '120000',
      SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SVC_WEBHOOK_CA_FILE: tls.caFile,
      SVC_OUTBOX_POLL_MS: '200',
    },
    { worker: false },
  );
  try {
    const one = await measure(harness, smtp, tls, 1);
    const two = await measure(harness, smtp, tls, 2);
    const rows = [
      [
        `GET /v1/documents/:id, ${CONNECTIONS} connections`,
        `${one.reads.rps.toFixed(0)} req/s, p99 ${one.reads.p99} ms`,
        `${two.reads.rps.toFixed(0)} req/s, p99 ${two.reads.p99} ms`,
        `${(two.reads.rps / one.reads.rps).toFixed(2)}x`,
      ],
      [
        `L2 applies (1-page NDA), ${APPLIES} at once`,
        `${one.applies.perSecond.toFixed(1)}/s, p50 ${one.applies.p50.toFixed(0)} ms, ${one.applies.ok} ok`,
        `${two.applies.perSecond.toFixed(1)}/s, p50 ${two.applies.p50.toFixed(0)} ms, ${two.applies.ok} ok`,
        `${(two.applies.perSecond / one.applies.perSecond).toFixed(2)}x`,
      ],
      [
        `webhook deliveries, ${EVENTS} events to one receiver`,
        `${one.webhooks.perSecond.toFixed(0)}/s, ${one.webhooks.lost} lost`,
        `${two.webhooks.perSecond.toFixed(0)}/s, ${two.webhooks.lost} lost`,
        `${(two.webhooks.perSecond / one.webhooks.perSecond).toFixed(2)}x`,
      ],
    ];
    const header = ['workload', '1 API + 1 worker', '2 APIs + 2 workers', 'scale'];
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ');
    console.log(`capacity benchmark: ${os.cpus().length} cores, PostgreSQL, API and worker processes of their own`);
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    summarize(
      ...rows.map(([path, single, double, scale]) => ({
        path: `capacity: ${path}`,
        measured: `2+2: ${double}`,
        reference: `1+1: ${single}`,
        ratio: scale,
        goal: '—',
      })),
    );
    if (one.webhooks.lost + two.webhooks.lost > 0 || one.applies.ok + two.applies.ok < 2 * APPLIES) process.exitCode = 1;
  } finally {
    await harness.close();
    await smtp.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
