// `npm run bench -- reads`: GET /v1/documents/:id under load (autocannon, 50 connections) beside a
// bare Koa handler doing one primary-key query on the same database, then GET /v1/documents (first
// page) in a tenant of 100,000 documents beside one of 1,000, with the plan PostgreSQL chose for it.
// Each pair is interleaved in rounds (bench/rounds.ts); the service runs as deployed (AS_DEPLOYED).
import { seedSamples } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { bareKoa } from './bare-read';
import { AS_DEPLOYED, autocannon, startHarness } from './harness';
import { formatRatio, interleave, middle, ratios, roundsOr, warmupOr } from './rounds';
import { goal, type Settings, type SummaryRow, settingsLine, summarize, table } from './summary';

// A round is seconds of load a side: fewer rounds than the apply's.
const ROUNDS = roundsOr(9);
const WARMUP = warmupOr(1);

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Seconds of load per side per round. */
const SECONDS = Number(process.env.BENCH_DURATION_S ?? 5);
const LARGE = Number(process.env.BENCH_LIST_ROWS ?? 100_000);
/** Ids of the documents this run copies in (removed at the end). */
const PREFIX = `doc_bench${Date.now().toString(36)}_`;

const load = (url: string, headers: Record<string, string>, seconds = SECONDS, connections = CONNECTIONS) =>
  autocannon(url, headers, seconds, connections);

async function main() {
  const harness = await startHarness({ LOG_LEVEL: 'error', ...AS_DEPLOYED });
  const { deps } = harness;
  const settings: Settings = { bench: 'reads', env: deps.config.env, database: deps.dbDriver, rounds: ROUNDS, warmup: WARMUP };
  console.log(`read benchmark: ${settingsLine([settings])}; autocannon ${CONNECTIONS} connections × ${SECONDS} s per side per round`);
  const rows: SummaryRow[] = [];
  try {
    const owner = await createAccount(deps.db, { plan: 'business' });
    const stack = { url: harness.url, deps, config: deps.config } as Parameters<typeof seedSamples>[0];
    const { nda } = await seedSamples(stack, owner);
    const created = await call(harness.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: {
        template_id: nda.id,
        name: 'bench read',
        signers: [
          { name: 'Ann', email: 'ann-bench@example.test' },
          { name: 'Bob', email: 'bob-bench@example.test' },
        ],
      },
    });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    const id = created.body.document_id as string;
    const auth = { authorization: `Bearer ${owner.key}` };

    // The reference runs in this process too, on a pool of the same size: the same conditions.
    const bare = await bareKoa(process.env.BENCH_DATABASE_URL, deps.config.dataDir);
    const bareUrl = `${bare.url}/documents/${id}`;
    const serviceUrl = `${harness.url}/v1/documents/${id}`;
    const reads = await interleave({
      rounds: ROUNDS,
      warmup: WARMUP,
      reference: () => load(bareUrl, {}),
      measured: () => load(serviceUrl, auth),
      onRound: ({ round, first, reference, measured }) => {
        console.log(
          `  read, round ${round} (${first} first): service ${measured.rps.toFixed(0)} req/s, p99 ${measured.p99} ms; ` +
            `bare ${reference.rps.toFixed(0)} req/s, p99 ${reference.p99} ms; ${((measured.rps / reference.rps) * 100).toFixed(1)}%, ` +
            `p99 ${(measured.p99 / reference.p99).toFixed(2)}x`,
        );
        if (measured.errors + measured.non2xx + reference.errors + reference.non2xx > 0)
          console.log(`  errors: service ${measured.errors}+${measured.non2xx} non-2xx, bare ${reference.errors}+${reference.non2xx}`);
      },
    });
    await bare.close();
    const throughput = ratios(reads, (p) => p.measured.rps / p.reference.rps);
    const p99 = ratios(reads, (p) => p.measured.p99 / Math.max(p.reference.p99, 1));
    rows.push({
      path: `GET /v1/documents/:id, ${CONNECTIONS} connections, ${SECONDS} s per side per round`,
      measured: `${middle(reads, (p) => p.measured.rps).toFixed(0)} req/s, p99 ${middle(reads, (p) => p.measured.p99)} ms (medians)`,
      reference: `bare Koa + one PK query: ${middle(reads, (p) => p.reference.rps).toFixed(0)} req/s, p99 ${middle(reads, (p) => p.reference.p99)} ms`,
      ratio: `req/s ${formatRatio(throughput, '%')}; p99 ${formatRatio(p99)}`,
      goal: goal('≥ 80%, p99 ≤ 1.5x', throughput.median >= 0.8 && p99.median <= 1.5),
      settings,
    });

    // BENCH_LIST_ROWS=0 measures the read alone.
    if (LARGE > 0) {
      const columns: string[] = (
        await deps.db('information_schema.columns').where({ table_name: 'documents', table_schema: deps.db.raw('current_schema()') })
      ).map((column: { column_name: string }) => column.column_name);
      const copies = async (seed: string, prefix: string, count: number) => {
        const select = columns.map((column) =>
          column === 'id'
            ? `'${prefix}' || lpad(g::text, 8, '0')`
            : column === 'created_at'
              ? `now() - g * interval '1 second'`
              : `"${column}"`,
        );
        await deps.db.raw(
          `insert into documents (${columns.map((c) => `"${c}"`).join(', ')})
           select ${select.join(', ')} from documents, generate_series(1, ?::int) g where id = ?`,
          [count, seed],
        );
        await deps.db.raw('analyze documents');
      };
      // Lists: the first page in a tenant of LARGE documents beside one of 1,000, each tenant its own.
      const tenant = async (tag: string, count: number) => {
        const lister = await createAccount(deps.db, { plan: 'business' });
        const listed = await call(harness.url, 'POST', '/v1/documents', {
          key: lister.key,
          body: {
            template_id: (await seedSamples(stack, lister)).nda.id,
            name: 'list seed',
            signers: [{ name: 'A', email: 'a@example.test' }],
          },
        });
        await copies(listed.body.document_id, `${PREFIX}${tag}_`, count - 1);
        return { authorization: `Bearer ${lister.key}` };
      };
      const small = await tenant('small', 1000);
      const large = await tenant('large', LARGE);
      const url = `${harness.url}/v1/documents?limit=20`;
      const lists = await interleave({
        rounds: ROUNDS,
        warmup: WARMUP,
        reference: () => load(url, small),
        measured: () => load(url, large),
        onRound: ({ round, first, reference, measured }) =>
          console.log(
            `  list, round ${round} (${first} first): at ${LARGE.toLocaleString('en')} p50 ${measured.p50} ms, ${measured.rps.toFixed(0)} req/s; ` +
              `at 1,000 p50 ${reference.p50} ms, ${reference.rps.toFixed(0)} req/s`,
          ),
      });
      const p50 = ratios(lists, (p) => p.measured.p50 / Math.max(p.reference.p50, 1));
      rows.push({
        path: `GET /v1/documents first page at ${LARGE.toLocaleString('en')} documents`,
        measured: `${middle(lists, (p) => p.measured.rps).toFixed(0)} req/s, p50 ${middle(lists, (p) => p.measured.p50)} ms (medians)`,
        reference: `at 1,000: ${middle(lists, (p) => p.reference.rps).toFixed(0)} req/s, p50 ${middle(lists, (p) => p.reference.p50)} ms`,
        ratio: `p50 ${formatRatio(p50)}`,
        goal: goal('≤ 1.2x', p50.median <= 1.2),
        settings,
      });

      // The plan of the first page's query at LARGE rows: it must walk an index in the list's order.
      const seen: Array<{ sql: string; bindings: unknown[] }> = [];
      const listener = (query: { sql: string; bindings: unknown[] }) => seen.push(query);
      deps.db.on('query', listener);
      await call(harness.url, 'GET', '/v1/documents?limit=20', { headers: large });
      deps.db.off('query', listener);
      const list = seen.find((query) => /from "documents"/.test(query.sql) && /limit/i.test(query.sql));
      if (list) {
        const plan = await deps.db.raw(`explain (analyze, buffers) ${list.sql.replace(/\$\d+/g, '?')}`, list.bindings as never);
        console.log(`plan of the first page at ${LARGE} documents:`);
        for (const line of plan.rows) console.log(`  ${line['QUERY PLAN']}`);
      }
    }

    console.log(`\nread benchmark: medians over the rounds; ${settingsLine([settings])}`);
    for (const line of table(rows, { measured: 'service', ratio: 'ratio per round' })) console.log(line);
    summarize(...rows);
  } finally {
    await deps.db.raw('delete from documents where id like ?', [`${PREFIX}%`]).catch(() => undefined);
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
