// `npm run bench -- reads`: GET /v1/documents/:id under load (autocannon, 50 connections) beside a
// bare Koa handler doing one primary-key query on the same database, then GET /v1/documents (first
// page) with 1,000 and with 100,000 documents in the tenant, with the plan PostgreSQL chose for it. The
// service runs as deployed (AS_DEPLOYED in harness.ts).
import { seedSamples } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { bareKoa } from './bare-read';
import { AS_DEPLOYED, autocannon, type Load, median, startHarness } from './harness';
import { summarize } from './summary';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_DURATION_S ?? 10);
const LARGE = Number(process.env.BENCH_LIST_ROWS ?? 100_000);
/** Pairs of loads, the bare reference then the service; the ratios are the medians of the pairs'. */
const ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 3);
/** Ids of the documents this run copies in (removed at the end). */
const PREFIX = `doc_bench${Date.now().toString(36)}_`;

const load = (url: string, headers: Record<string, string>, seconds = SECONDS, connections = CONNECTIONS) =>
  autocannon(url, headers, seconds, connections);

async function main() {
  if (!process.env.BENCH_DATABASE_URL) console.log('(BENCH_DATABASE_URL is not set: PGlite; the figures that count are on PostgreSQL)');
  const harness = await startHarness({ LOG_LEVEL: 'error', ...AS_DEPLOYED });
  const { deps } = harness;
  const rows: string[][] = [];
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
    await load(bareUrl, {}, 2); // warm-up
    await load(serviceUrl, auth, 2);
    // Rounds alternate the two, so a burst of other load on the machine falls on one pair, not on one side.
    const pairs: Array<{ reference: Load; measured: Load }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const reference = await load(bareUrl, {});
      const measured = await load(serviceUrl, auth);
      pairs.push({ reference, measured });
      console.log(
        `round ${round}: service ${measured.rps.toFixed(0)} req/s, p99 ${measured.p99} ms; bare ${reference.rps.toFixed(0)} req/s, ` +
          `p99 ${reference.p99} ms; ${((measured.rps / reference.rps) * 100).toFixed(1)}%, p99 ${(measured.p99 / reference.p99).toFixed(2)}x`,
      );
      if (measured.errors + measured.non2xx + reference.errors + reference.non2xx > 0)
        console.log(`errors: service ${measured.errors}+${measured.non2xx} non-2xx, bare ${reference.errors}+${reference.non2xx}`);
    }
    await bare.close();
    const mid = (pick: (pair: (typeof pairs)[number]) => number) => median(pairs.map(pick));
    rows.push([
      `GET /v1/documents/:id, ${CONNECTIONS} connections, ${SECONDS} s, median of ${ROUNDS} rounds`,
      `${mid((p) => p.measured.rps).toFixed(0)} req/s, p99 ${mid((p) => p.measured.p99)} ms`,
      `bare Koa + one PK query: ${mid((p) => p.reference.rps).toFixed(0)} req/s, p99 ${mid((p) => p.reference.p99)} ms`,
      `${(mid((p) => p.measured.rps / p.reference.rps) * 100).toFixed(0)}% req/s, p99 ${mid((p) => p.measured.p99 / p.reference.p99).toFixed(2)}x`,
      '≥ 50%, ≤ 2x',
    ]);

    // BENCH_LIST_ROWS=0 measures the read alone.
    if (LARGE > 0) {
      // Lists: the first page at 1,000 documents, then at LARGE, in a tenant of their own.
      const lister = await createAccount(deps.db, { plan: 'business' });
      const listed = await call(harness.url, 'POST', '/v1/documents', {
        key: lister.key,
        body: {
          template_id: (await seedSamples(stack, lister)).nda.id,
          name: 'list seed',
          signers: [{ name: 'A', email: 'a@example.test' }],
        },
      });
      const seed = listed.body.document_id as string;
      const columns: string[] = (
        await deps.db('information_schema.columns').where({ table_name: 'documents', table_schema: deps.db.raw('current_schema()') })
      ).map((column: { column_name: string }) => column.column_name);
      const copies = async (from: number, to: number) => {
        const select = columns.map((column) =>
          column === 'id'
            ? `'${PREFIX}' || lpad(g::text, 8, '0')`
            : column === 'created_at'
              ? `now() - g * interval '1 second'`
              : `"${column}"`,
        );
        await deps.db.raw(
          `insert into documents (${columns.map((c) => `"${c}"`).join(', ')})
           select ${select.join(', ')} from documents, generate_series(?::int, ?::int) g where id = ?`,
          [from, to, seed],
        );
        await deps.db.raw('analyze documents');
      };
      const listFigure = async () => {
        const url = `${harness.url}/v1/documents?limit=20`;
        await load(url, { authorization: `Bearer ${lister.key}` }, 2);
        return await load(url, { authorization: `Bearer ${lister.key}` });
      };
      await copies(1, 999);
      const small = await listFigure();
      await copies(1000, LARGE - 1);
      const large = await listFigure();
      rows.push([
        `GET /v1/documents first page at ${LARGE.toLocaleString('en')} documents`,
        `${large.rps.toFixed(0)} req/s, p50 ${large.p50} ms, p99 ${large.p99} ms`,
        `at 1,000: ${small.rps.toFixed(0)} req/s, p50 ${small.p50} ms, p99 ${small.p99} ms`,
        `p50 ${(large.p50 / Math.max(small.p50, 1)).toFixed(2)}x, req/s ${(small.rps / large.rps).toFixed(2)}x`,
        '≤ 1.2x',
      ]);

      // The plan of the first page's query at LARGE rows: it must walk an index in the list's order.
      const seen: Array<{ sql: string; bindings: unknown[] }> = [];
      const listener = (query: { sql: string; bindings: unknown[] }) => seen.push(query);
      deps.db.on('query', listener);
      await call(harness.url, 'GET', '/v1/documents?limit=20', { key: lister.key });
      deps.db.off('query', listener);
      const list = seen.find((query) => /from "documents"/.test(query.sql) && /limit/i.test(query.sql));
      if (list) {
        const plan = await deps.db.raw(`explain (analyze, buffers) ${list.sql.replace(/\$\d+/g, '?')}`, list.bindings as never);
        console.log(`plan of the first page at ${LARGE} documents:`);
        for (const line of plan.rows) console.log(`  ${line['QUERY PLAN']}`);
      }
    }

    console.log(`\nread benchmark: database ${deps.dbDriver}, autocannon ${CONNECTIONS} connections × ${SECONDS} s after a 2 s warm-up`);
    const header = ['path', 'service', 'reference (same run)', 'ratio', 'goal'];
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ');
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    summarize(...rows.map(([path, measured, reference, ratio, goal]) => ({ path, measured, reference, ratio, goal })));
  } finally {
    await deps.db.raw('delete from documents where id like ?', [`${PREFIX}%`]).catch(() => undefined);
    await harness.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
