// `npm run bench -- webhooks`: rounds (bench/rounds.ts) that alternate 1,000 events through the
// outbox to a local HTTPS receiver (commit → last delivery) with a bare HTTPS POST loop of as many
// requests at the same concurrency to the same receiver; prints the throughput ratio per round and how
// many events were lost or delivered twice over all rounds (both must be 0). The receiver runs in a
// process of its own (bench/receiver-process.ts), as a real one does; the service as deployed.
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { writeEvent } from '../activities/events/outbox';
import { createWebhook } from '../activities/webhooks/webhooks';
import type { Logger } from '../lib/log';
import { createAccount } from '../test/factories';
import { selfSignedCertificate } from '../test/receiver';
import { AS_DEPLOYED, startHarness } from './harness';
import type { ReceiverReport, ReceiverRequest } from './receiver-process';
import { formatRatio, interleave, middle, ratios, roundsOr, warmupOr } from './rounds';
import { goal, type Settings, settingsLine, summarize } from './summary';

// A round is 1,000 events, under a second a side: more rounds than the reads for the same time.
const ROUNDS = roundsOr(15);
const WARMUP = warmupOr(2);

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
      ...AS_DEPLOYED,
      SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SVC_WEBHOOK_CA_FILE: tls.caFile,
      SVC_OUTBOX_POLL_MS: '200',
      SVC_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    },
    { log: timings },
  );
  const { deps } = harness;
  const settings: Settings = { bench: 'webhooks', env: deps.config.env, database: deps.dbDriver, rounds: ROUNDS, warmup: WARMUP };
  console.log(
    `webhook benchmark: ${EVENTS} events a round, outbox poll ${deps.config.durations.outboxPollMs} ms; ${settingsLine([settings])}`,
  );
  try {
    const account = await createAccount(deps.db);
    await createWebhook({ db: deps.db, secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts }, account.tenantId, {
      url: receiver.url,
    });
    /** Every event the service was asked to deliver, and how often each arrived, over all rounds. */
    const written: string[] = [];
    const arrived = new Map<string, number>();
    // Before each reset (and at the end): what reached the receiver since the last, late repeats included.
    const tally = async () => {
      for (const id of (await receiver.report()).ids) if (id !== 'undefined') arrived.set(id, (arrived.get(id) ?? 0) + 1);
    };
    const fresh = async () => {
      await tally();
      return (await receiver.reset()).url;
    };
    const ca = fs.readFileSync(tls.caFile, 'utf8');
    let last = { committedAt: 0 };
    const pairs = await interleave({
      rounds: ROUNDS,
      warmup: WARMUP,
      // The relay records a round's last deliveries after they arrive: that tail settles before the next side.
      settleMs: 500,
      reference: async () => {
        const bare = await bareLoop(await fresh(), ca);
        return { ...bare, report: await receiver.report() };
      },
      measured: async () => {
        await fresh();
        const ids: string[] = [];
        // One transaction: the events become visible to the relay together, and the clock starts at their commit.
        await deps.db.transaction(async (trx) => {
          for (let j = 0; j < EVENTS; j += 1)
            ids.push((await writeEvent(trx, account.tenantId, 'document.signed', { document_id: `doc_bench${j}`, n: j })).id);
        });
        const committedAt = Date.now();
        const committedMicros = process.hrtime.bigint() / 1000n;
        written.push(...ids);
        const deadline = committedAt + TIMEOUT_MS;
        while ((await receiver.count()).unique < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        const report = await receiver.report();
        const ms = report.lastAt - committedAt;
        // Under --cpu-prof: the profile's timestamps (µs, the monotonic clock) of the commit and the last delivery.
        if (process.execArgv.some((arg) => arg.startsWith('--cpu-prof')))
          console.log(`  profile window               ${committedMicros}–${committedMicros + BigInt(Math.round(ms * 1000))} µs`);
        last = { committedAt };
        return { ms, report };
      },
      onRound: ({ round, first, reference, measured }) =>
        console.log(
          `  round ${round} (${first} first): service ${measured.ms.toFixed(0)} ms (${handshakes(measured.report)}, at most ` +
            `${measured.report.maxInFlight} at once); bare loop ${reference.ms.toFixed(0)} ms (${reference.ok} 2xx, ` +
            `${handshakes(reference.report)}); ${((reference.ms / measured.ms) * 100).toFixed(1)}%`,
        ),
    });
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a late repeat of the last round still counts
    await tally();
    const lost = written.filter((id) => !arrived.has(id)).length;
    const duplicated = [...arrived.values()].reduce((sum, count) => sum + count - 1, 0);
    const throughput = ratios(pairs, (pair) => pair.reference.ms / pair.measured.ms);
    const serviceMs = middle(pairs, (pair) => pair.measured.ms);
    const bareMs = middle(pairs, (pair) => pair.reference.ms);
    console.log(`webhook benchmark, medians over the rounds; ${settingsLine([settings])}`);
    console.log(
      `  time to the last delivery    ${serviceMs.toFixed(0)} ms (from the events' commit), ${((EVENTS / serviceMs) * 1000).toFixed(0)}/s`,
    );
    console.log(
      `  bare HTTPS POST loop         ${bareMs.toFixed(0)} ms, ${((EVENTS / bareMs) * 1000).toFixed(0)}/s (${CONCURRENCY} at a time, keep-alive)`,
    );
    console.log(`  service / bare throughput    ${formatRatio(throughput, '%')} (goal ≥ 80%)`);
    console.log(`  over all rounds (warm-up included): ${written.length} events, ${lost} lost, ${duplicated} delivered more than once`);
    // Printed last: a round's line is written with its records, after its last delivery.
    console.log('  relay rounds of the last service round (ms from the commit: moved and read, posted, recorded)');
    for (const { startedAt, recordedAt, moveMs, readMs, postedAt, recordMs, deliveries } of timings.lines as Array<
      Record<string, number>
    >) {
      if (startedAt < last.committedAt - 1000 || !deliveries) continue;
      const from = startedAt - last.committedAt;
      const posted = postedAt - last.committedAt;
      console.log(
        `    ${String(deliveries).padStart(4)} deliveries: move ${from.toFixed(0)}+${moveMs.toFixed(0)}, read +${readMs.toFixed(0)}, ` +
          `last answer at ${posted.toFixed(0)}, recorded at ${(recordedAt - last.committedAt).toFixed(0)} (${recordMs.toFixed(0)} ms)`,
      );
    }
    summarize({
      path: `${EVENTS} webhook events to one HTTPS receiver (commit → last delivery), ${pairs.length} rounds`,
      measured: `${serviceMs.toFixed(0)} ms, ${((EVENTS / serviceMs) * 1000).toFixed(0)}/s (median); ${lost} lost, ${duplicated} duplicated of ${written.length}`,
      reference: `bare HTTPS POST loop, ${CONCURRENCY} at a time, same receiver process: ${bareMs.toFixed(0)} ms, ${((EVENTS / bareMs) * 1000).toFixed(0)}/s`,
      ratio: formatRatio(throughput, '%'),
      goal: goal('≥ 80%, 0 lost, 0 duplicated', throughput.median >= 0.8 && lost === 0 && duplicated === 0),
      settings,
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
