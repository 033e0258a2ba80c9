// `npm run bench -- apply`: one apply (stamp + seal) on the 1-page and the 50-page sample, in
// process and end to end through HTTP (sign page → workflow → worker → commit), interleaved in rounds
// (bench/rounds.ts), with the ratio per round; the service runs as deployed (AS_DEPLOYED).

import { DocumentRevision } from '../db/models';
import { createLogger } from '../lib/log';
import { stampWidgets } from '../lib/pdf/stamp';
import { SignerSession, seedSamples } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { dataUrl, signaturePng } from '../test/images';
import { recordStatements } from '../test/queries';
import { startSmtpListener } from '../test/smtp';
import { documentWorkflowId } from '../workflows/document/shared';
import { AS_DEPLOYED, ms, startHarness } from './harness';
import { formatRatio, interleave, middle, ratios, roundsOr, warmupOr } from './rounds';
import { goal, type Settings, settingsLine, summarize } from './summary';

// An apply round takes a fraction of a second: many of them, after a warm-up long enough for the JIT
// to settle on the worker's path (the first rounds of a run are a third slower).
const ROUNDS = roundsOr(25);
const WARMUP = warmupOr(5);

const signature = signaturePng();

/**
 * The reference: the apply's own PDF work in this process, in ms: the stamp of the same stored PDF (the
 * document's revision 0 as the apply reads it), the same widgets and values, and the seal by the same sealer.
 */
async function stampAndSeal(
  pdf: Uint8Array,
  widgets: Parameters<typeof stampWidgets>[1]['widgets'],
  values: Record<string, string>,
  sealer: { seal(pdf: Uint8Array, info: { reason: string }): Promise<Uint8Array> },
) {
  const started = performance.now();
  const stamped = await stampWidgets(pdf, {
    widgets,
    signer: { name: 'Bench Signer', email: 'bench@example.test' },
    signedAt: new Date(),
    signatureImage: signature,
    values,
  });
  await sealer.seal(stamped, { reason: 'bench' });
  return performance.now() - started;
}

/** The apply activity's stage timings (debug lines `apply timings`); other debug and info lines are dropped. */
const stageLines: Array<{ apply_id: string; document_id: string; ms: Record<string, number>; started_at?: number; committed_at?: number }> =
  [];
const log = createLogger('debug', {}, (line) => {
  const entry = JSON.parse(line);
  if (entry.msg === 'apply timings') stageLines.push(entry);
  else if (entry.level === 'warn' || entry.level === 'error') process.stderr.write(line);
  return true;
});

type HistoryEvent = { eventType?: unknown; eventTime?: { seconds?: unknown; nanos?: number | null } | null } & Record<string, unknown>;
const timeOf = (event: HistoryEvent) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/**
 * One apply's path, each stage with when it began relative to the request and how long it took:
 * HTTP in (the apply recorded, the update-with-start sent), the workflow task that takes the update
 * and runs the apply inside it as a local activity (its stages from the activity's `apply timings`),
 * the answer (the commit's notice), and that task's completion (which completes the update).
 */
async function timeline(harness: Awaited<ReturnType<typeof startHarness>>, documentId: string, sentAt: number, answeredAt: number) {
  const history = await harness.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId)).fetchHistory();
  const events = (history.events ?? []) as HistoryEvent[];
  const after = (from: HistoryEvent | number | undefined, has: string) =>
    events.find((event) => event[has] && (from === undefined || timeOf(event) >= (typeof from === 'number' ? from : timeOf(from))));
  const scheduled = after(sentAt, 'workflowTaskScheduledEventAttributes');
  const taskStarted = after(scheduled, 'workflowTaskStartedEventAttributes');
  const marker = events.findLast(
    (event) => (event.markerRecordedEventAttributes as { markerName?: string } | undefined)?.markerName === 'core_local_activity',
  );
  const taskCompleted = events.find(
    (event) =>
      event.workflowTaskCompletedEventAttributes &&
      String(event.eventId) ===
        String((marker?.markerRecordedEventAttributes as { workflowTaskCompletedEventId?: unknown })?.workflowTaskCompletedEventId),
  );
  const updateDone = after(taskCompleted, 'workflowExecutionUpdateCompletedEventAttributes');
  const line = stageLines.find((entry) => entry.document_id === documentId);
  const stages = line?.ms ?? {};
  if (process.env.BENCH_VERBOSE)
    for (const event of events) {
      const attributes = Object.keys(event).find((key) => key.endsWith('EventAttributes') && event[key]);
      console.log(
        `    ${(timeOf(event) - sentAt).toFixed(1).padStart(8)}  ${attributes?.replace(/EventAttributes$/, '')}` +
          // A workflow task on the worker's sticky queue finds the workflow in its cache; on the normal queue it replays.
          `${(event.workflowTaskScheduledEventAttributes as { taskQueue?: { kind?: unknown } } | undefined)?.taskQueue ? ` (task queue kind ${(event.workflowTaskScheduledEventAttributes as { taskQueue: { kind?: unknown } }).taskQueue.kind})` : ''}`,
      );
    }
  const rows: Array<[string, number, number]> = [];
  const at = (event: HistoryEvent | undefined) => (event ? timeOf(event) - sentAt : Number.NaN);
  rows.push(['HTTP in → update taken, task scheduled', 0, at(scheduled)]);
  rows.push(['→ workflow task started (worker polled)', at(scheduled), at(taskStarted) - at(scheduled)]);
  // The activation (the update, the workflow's loop, the local activity scheduled) and the activity's dispatch.
  const activityStarted = line?.started_at === undefined ? Number.NaN : line.started_at - sentAt;
  rows.push(['→ local activity started (activation)', at(taskStarted), activityStarted - at(taskStarted)]);
  let cursor = activityStarted;
  for (const stage of ['load', 'stamp', 'seal', 'certify', 'store', 'commit']) {
    if (stages[stage] === undefined) continue;
    rows.push([`  apply (local activity): ${stage}`, cursor, stages[stage]]);
    cursor += stages[stage];
  }
  // The request answers from the commit's notice (decision 0038), or from the update if that came first.
  const committed = line?.committed_at === undefined ? Number.NaN : line.committed_at - sentAt;
  rows.push(['→ answer received (after the commit)', committed, answeredAt - sentAt - committed]);
  rows.push(['workflow task completed (recorded)', at(taskStarted), at(taskCompleted) - at(taskStarted)]);
  rows.push(['→ update completed', at(taskCompleted), at(updateDone) - at(taskCompleted)]);
  return rows;
}

async function main() {
  // The signers' e-mailed codes land in a local SMTP listener, as in the tests.
  const smtp = await startSmtpListener();
  // As deployed, except: the signer's code mail goes to the local listener; every round asks for a
  // code from 127.0.0.1, so the per-address code limit is lifted; the request waits for its apply.
  const harness = await startHarness(
    { ...AS_DEPLOYED, SVC_APPLY_WAIT_MS: '60000', SMTP_URL: smtp.url, SVC_CODE_IP_LIMIT: '1000000' },
    { log },
  );
  const settings: Settings = {
    bench: 'apply',
    env: harness.deps.config.env,
    database: harness.deps.dbDriver,
    rounds: ROUNDS,
    warmup: WARMUP,
  };
  console.log(`apply benchmark: ${settingsLine([settings])}`);
  const timelines: string[] = [];
  try {
    const sealer = await harness.deps.sealer();
    const owner = await createAccount(harness.deps.db);
    const stack = { url: harness.url, deps: harness.deps, config: harness.deps.config, smtp } as Parameters<typeof seedSamples>[0];
    const templates = await seedSamples(stack, owner);
    const rows: string[][] = [];
    for (const [label, template] of [
      ['1-page NDA', templates.nda],
      ['50-page agreement', templates.services],
    ] as const) {
      let next: { documentId: string; session: SignerSession; unsealed: Uint8Array } | undefined;
      let made = 0;
      const widgets = template.widgets.filter((w) => w.role === template.roles[0]);
      const values = Object.fromEntries(
        template.widgets.filter((w) => w.role === template.roles[0] && w.type === 'text' && w.required).map((w) => [w.id, 'Bench']),
      );
      const pairs = await interleave({
        rounds: ROUNDS,
        warmup: WARMUP,
        // A sent document and its first signer's verified session, untimed.
        prepare: async () => {
          made += 1;
          const created = await call(harness.url, 'POST', '/v1/documents', {
            key: owner.key,
            body: {
              template_id: template.id,
              name: `bench ${made}`,
              signers: template.roles.map((_role, i) => ({ name: `Signer ${i}`, email: `s${i}-${made}-${Date.now()}@example.test` })),
              send: true,
            },
          });
          if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
          const first = created.body.signers[0];
          const revision = await DocumentRevision.query(harness.deps.db).findById([created.body.document_id, 0]);
          next = {
            documentId: created.body.document_id,
            session: await new SignerSession(stack, first.sign_url, first.email).verify(),
            unsealed: await harness.deps.blobs.get(revision!.unsealed_sha256),
          };
        },
        // The invitation mails and the previous apply's follow-ups (the principal's notice, the next
        // signer's invitation: mail workflows and SMTP) settle before each side; at 200 ms they still
        // landed on the side after them, and the measured path ran a third slower after the reference.
        settleMs: 1000,
        reference: () => stampAndSeal(next!.unsealed, widgets, values, sealer),
        measured: async () => {
          const { documentId, session } = next!;
          const started = performance.now();
          // Epoch ms with the fraction, as the activity's timings and the history's event times are.
          const sentAt = performance.timeOrigin + started;
          const statements = recordStatements(harness.deps.db, started);
          const signed = await session.request('POST', '/sign', {
            consent: true,
            signature: { method: 'drawn', image: dataUrl(signature) },
            values,
          });
          const elapsed = performance.now() - started;
          statements.stop();
          if (signed.status !== 200) throw new Error(`sign answered ${signed.status}: ${signed.text}`);
          return { elapsed, documentId, sentAt, answeredAt: sentAt + elapsed, statements: statements.statements };
        },
        onRound: ({ round, first, reference, measured }) =>
          console.log(
            `  ${label}, round ${round} (${first} first): end to end ${ms(measured.elapsed)}, stamp + seal ${ms(reference)}, ` +
              `${(measured.elapsed / reference).toFixed(2)}x`,
          ),
      });
      // The fastest and the slowest round side by side: where a slow apply's time went.
      const byTime = [...pairs].sort((a, b) => a.measured.elapsed - b.measured.elapsed);
      for (const [which, pair] of [
        ['fastest', byTime[0]],
        ['slowest', byTime[byTime.length - 1]],
      ] as const) {
        const run = pair.measured;
        const steps = await timeline(harness, run.documentId, run.sentAt, run.answeredAt);
        timelines.push(
          `timeline of one apply, ${label} (${which} round, ${pair.round}, ${pair.first} first, ${ms(run.elapsed)}; ms from the request, and duration):`,
          ...steps.map(
            ([stage, from, took]) => `  ${stage.padEnd(40)} at ${from.toFixed(1).padStart(6)}  took ${took.toFixed(1).padStart(6)}`,
          ),
          `  the statements sent meanwhile (every process's of this harness: the API's and the worker's), ms from the request (– : knex reports no answer for BEGIN and COMMIT):`,
          ...run.statements.map(
            ({ at, took, sql }) =>
              `    at ${at.toFixed(1).padStart(6)}  took ${took === undefined ? '    –' : took.toFixed(1).padStart(5)}  ${sql.replace(/\s+/g, ' ').slice(0, 90)}`,
          ),
        );
      }
      const local = middle(pairs, (pair) => pair.reference);
      const endToEnd = middle(pairs, (pair) => pair.measured.elapsed);
      const ratio = ratios(pairs, (pair) => pair.measured.elapsed / pair.reference);
      const target = label.startsWith('1-page') ? 1.5 : 1.3;
      rows.push([label, ms(local), ms(endToEnd), formatRatio(ratio)]);
      summarize({
        path: `one apply end to end (HTTP → workflow → worker → commit → answer), ${label}`,
        measured: `${ms(endToEnd)} (median)`,
        reference: `in-process stamp + seal: ${ms(local)} (median)`,
        ratio: formatRatio(ratio),
        goal: goal(`≤ ${target}x`, ratio.median <= target),
        settings,
      });
    }
    const header = ['document', 'in process (stamp + seal)', 'end to end via HTTP', 'ratio per round: median (min–max, IQR, n)'];
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
    console.log(`\napply benchmark: medians over the rounds; ${settingsLine([settings])}`);
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    console.log('');
    for (const text of timelines) console.log(text);
  } finally {
    await harness.close();
    await smtp.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
