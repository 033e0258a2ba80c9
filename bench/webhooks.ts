// `npm run bench -- webhooks`: 1,000 events through the outbox to a local HTTPS receiver; prints the
// time from their commit to the last delivery, the throughput, and how many were lost or delivered
// twice (both must be 0), beside a bare HTTPS POST loop with the same concurrency to the same receiver.
// The receiver runs in a process of its own (bench/receiver-process.ts), as a real one does.
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { writeEvent } from '../activities/events/outbox';
import { createWebhook } from '../activities/webhooks/webhooks';
import type { Logger } from '../lib/log';
import { createAccount } from '../test/factories';
import { selfSignedCertificate } from '../test/receiver';
import { startHarness } from './harness';
import type { ReceiverReport, ReceiverRequest } from './receiver-process';
import { summarize } from './summary';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const TIMEOUT_MS = 10 * 60_000;
/** Requests in flight to the one endpoint: the service's SVC_WEBHOOK_CONCURRENCY (default 16) and the bare loop's. */
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 16);

/** The receiver process: its answers come in the order of the requests. */
async function receiverProcess(tls: { key: string; cert: string }) {
  const child: ChildProcess = fork(path.join(path.dirname(new URL(import.meta.url).pathname), 'receiver-process.ts'), {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const waiting: Array<(answer: unknown) => void> = [];
  child.on('message', (answer) => waiting.shift()?.(answer));
  const ask = <T>(request: ReceiverRequest) =>
    new Promise<T>((resolve) => {
      waiting.push(resolve as (answer: unknown) => void);
      child.send(request);
    });
  const { url } = await ask<{ url: string }>({ type: 'start', tls });
  return {
    url,
    reset: () => ask<{ url: string }>({ type: 'reset' }),
    count: () => ask<{ total: number; unique: number }>({ type: 'count' }),
    report: () => ask<ReceiverReport>({ type: 'report' }),
    stop: () => child.disconnect(),
  };
}

/** The relay's timing lines (one per round, debug level), kept for printing; errors to stderr. */
function relayTimings(): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = {
    lines,
    debug: (message: string, fields?: Record<string, unknown>) => {
      if (message === 'outbox relay round') lines.push({ recordedAt: Date.now(), ...fields });
    },
    info: () => undefined,
    warn: () => undefined,
    error: (message: string, fields?: Record<string, unknown>) => console.error(message, fields ?? ''),
    child: () => log,
  };
  return log;
}

const handshakes = (report: ReceiverReport) => `${report.connections} TLS handshakes (${report.resumed} resumed)`;

/**
 * The reference: EVENTS signed-size JSON POSTs to the same receiver process with node's https client,
 * CONCURRENCY at a time over keep-alive connections; answers the time to the last 2xx.
 */
async function bareLoop(url: string, ca: string): Promise<{ ms: number; ok: number }> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca });
  const body = JSON.stringify({ id: 'evt_bench', type: 'document.signed', data: { document_id: 'doc_bench', n: 0 } });
  let next = 0;
  let ok = 0;
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const request = https.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
        response.resume();
        response.on('end', () => {
          if ((response.statusCode ?? 0) < 300) ok += 1;
          resolve();
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        await post();
      }
    }),
  );
  const ms = performance.now() - started;
  agent.destroy();
  return { ms, ok };
}

async function main() {
  const tls = selfSignedCertificate();
  const receiver = await receiverProcess(tls);
  const timings = relayTimings();
  const harness = await startHarness(
    {
      SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SVC_WEBHOOK_CA_FILE: tls.caFile,
      SVC_OUTBOX_POLL_MS: '200',
      SVC_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    },
    { log: timings },
  );
  try {
    const { deps } = harness;
    const account = await createAccount(deps.db);
    await createWebhook({ db: deps.db, secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts }, account.tenantId, {
      url: receiver.url,
    });
    const ids: string[] = [];
    const writing = performance.now();
    // One transaction: the events become visible to the relay together, and the clock starts at their commit.
    await deps.db.transaction(async (trx) => {
      for (let j = 0; j < EVENTS; j += 1)
        ids.push((await writeEvent(trx, account.tenantId, 'document.signed', { document_id: `doc_bench${j}`, n: j })).id);
    });
    const committedAt = Date.now();
    const committedMicros = process.hrtime.bigint() / 1000n;
    const emitted = performance.now() - writing;
    const deadline = committedAt + TIMEOUT_MS;
    while ((await receiver.count()).unique < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const service = await receiver.report();
    const elapsed = service.lastAt - committedAt;
    // Under --cpu-prof: the profile's timestamps (µs, the monotonic clock) of the commit and the last delivery.
    if (process.execArgv.some((arg) => arg.startsWith('--cpu-prof')))
      console.log(`  profile window               ${committedMicros}–${committedMicros + BigInt(Math.round(elapsed * 1000))} µs`);
    const received = new Set(service.ids);
    const lost = ids.filter((id) => !received.has(id)).length;
    const duplicated = service.ids.length - received.size;
    console.log(`webhook benchmark: ${EVENTS} events, database ${deps.dbDriver}, outbox poll ${deps.config.durations.outboxPollMs} ms`);
    console.log(`  events written in            ${emitted.toFixed(0)} ms`);
    console.log(`  time to the last delivery    ${elapsed.toFixed(0)} ms (from the events' commit)`);
    console.log(`  throughput                   ${((EVENTS / elapsed) * 1000).toFixed(0)} deliveries/s`);
    console.log(`  delivered more than once     ${duplicated}`);
    console.log(`  lost                         ${lost}`);
    console.log(`  receiver saw                 ${handshakes(service)}, at most ${service.maxInFlight} requests at once`);
    const { url: bareUrl } = await receiver.reset();
    const bare = await bareLoop(bareUrl, fs.readFileSync(tls.caFile, 'utf8'));
    const bareReport = await receiver.report();
    const serviceRate = (EVENTS / elapsed) * 1000;
    const bareRate = (EVENTS / bare.ms) * 1000;
    const ratio = `${((serviceRate / bareRate) * 100).toFixed(1)}%`;
    console.log(
      `  bare HTTPS POST loop          ${bare.ms.toFixed(0)} ms, ${bareRate.toFixed(0)}/s (${CONCURRENCY} at a time, keep-alive, ${bare.ok} 2xx, ${handshakes(bareReport)})`,
    );
    console.log(`  service / bare throughput    ${ratio} (goal ≥ 50%)`);
    // Printed last: a round's line is written with its records, after its last delivery.
    console.log('  relay rounds (ms from the commit: moved and read, posted, recorded)');
    for (const { startedAt, recordedAt, moveMs, readMs, postedAt, recordMs, deliveries } of timings.lines as Array<
      Record<string, number>
    >) {
      if (startedAt < committedAt - 1000) continue;
      const from = startedAt - committedAt;
      const posted = postedAt - committedAt;
      console.log(
        `    ${String(deliveries).padStart(4)} deliveries: move ${from.toFixed(0)}+${moveMs.toFixed(0)}, read +${readMs.toFixed(0)}, ` +
          `last answer at ${posted.toFixed(0)}, recorded at ${(recordedAt - committedAt).toFixed(0)} (${recordMs.toFixed(0)} ms)`,
      );
    }
    summarize({
      path: `${EVENTS} webhook events to one HTTPS receiver (commit → last delivery)`,
      measured: `${elapsed.toFixed(0)} ms, ${serviceRate.toFixed(0)}/s, ${lost} lost, ${duplicated} duplicated`,
      reference: `bare HTTPS POST loop, ${CONCURRENCY} at a time, same receiver process: ${bare.ms.toFixed(0)} ms, ${bareRate.toFixed(0)}/s`,
      ratio,
      goal: '≥ 50%, 0 lost, 0 duplicated',
    });
    if (lost > 0) process.exitCode = 1;
  } finally {
    await harness.close();
    receiver.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
