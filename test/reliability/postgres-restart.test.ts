import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTemplate } from '../../activities/templates/templates';
import { Apply, type Template } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { downloadPdf } from '../documents';
import { type Account, createAccount } from '../factories';
import { call, type Reply } from '../http';
import { pdfsig } from '../pdf-tools';
import { mandatedAccount } from '../principal';
import { type Stack, startStack } from '../stack';
import { waitFor } from '../wait';
import { figure, inParallel, PrivatePostgres, sleep, WorkerProcess } from './processes';

const SCENARIO = 'PostgreSQL restart';
const CLIENTS = 4;
const DOCUMENTS_PER_CLIENT = 5;
/** When the server stops after the load began, and how long it stays down. */
const STOP_AFTER_MS = 3000;
const DOWN_MS = 4000;
/** A request during the outage answers within this (no request hangs on a dead pool). */
const FAST_MS = 5000;

interface Answer {
  what: string;
  status: number;
  code?: string;
  began: number;
  ms: number;
  /** The document a sign call was for. */
  documentId?: string;
}

/**
 * A PostgreSQL cluster of this file's own (never the machine's shared one) is stopped (`pg_ctl stop
 * -m fast`) for a few seconds under reads and L2 applies from several clients, then started again,
 * with the API (in process) and the worker (its own process) left running: meanwhile requests answer
 * 503 fast, never 500; afterwards they recover by themselves, and no apply is lost or made twice.
 */
describe('reliability: PostgreSQL restarted under load', () => {
  let postgres: PrivatePostgres;
  let stack: Stack;
  let worker: WorkerProcess;
  let owner: Account;
  let template: Template;

  before(async () => {
    postgres = await PrivatePostgres.create();
    // The stack makes its database on the private cluster (test/db.ts reads TEST_DATABASE_URL).
    process.env.TEST_DATABASE_URL = postgres.url;
    stack = await startStack({
      worker: false,
      env: {
        // Sign calls wait 3 s for applies that take 2 s or more: some are always waiting when the server stops.
        SVC_APPLY_WAIT_MS: '3000',
        SVC_ACTIVITY_HEARTBEAT_MS: '2000',
        SVC_ACTIVITY_TIMEOUT_MS: '30000',
        SVC_RETRY_INITIAL_MS: '200',
        SVC_RETRY_MAX_MS: '1000',
        SVC_OUTBOX_POLL_MS: '200',
      },
    });
    worker = new WorkerProcess({ ...stack.env, LOG_LEVEL: 'warn', SVC_FAULT_APPLY_PAUSE_MS: '2000' });
    owner = await createAccount(stack.deps.db, { name: 'Petra Postgres' });
    const sample = await buildSampleNda();
    template = await createTemplate(stack.deps, {
      tenantId: owner.tenantId,
      pdf: sample.pdf,
      definition: { name: 'Outage NDA', roles: sample.roles, widgets: sample.widgets.filter((w) => w.id !== 'receiving-title') },
      createdBy: 'test',
    });
  });
  after(async () => {
    await worker?.stop().catch(() => undefined);
    await stack?.close().catch(() => undefined);
    await postgres?.destroy();
  });

  it('answers 503 fast while the database is down, recovers by itself and loses no apply', async () => {
    worker.start();
    await worker.polling(stack.url);
    const clients: Array<{ account: Account; documents: string[] }> = [];
    for (let index = 0; index < CLIENTS; index += 1) {
      const { account } = await mandatedAccount(stack, { name: `Client ${index + 1}`, label: `client ${index + 1}` });
      const documents: string[] = [];
      for (let n = 0; n < DOCUMENTS_PER_CLIENT; n += 1) {
        const created = await call(stack.url, 'POST', '/v1/documents', {
          key: owner.key,
          body: {
            template_id: template.id,
            name: `Outage NDA ${index + 1}.${n + 1}`,
            signers: [
              { name: `Client ${index + 1}`, email: account.email },
              { name: 'Someone Else', email: `else-${index}-${n}@example.test` },
            ],
            send: true,
          },
        });
        assert.equal(created.status, 201, created.text);
        documents.push(created.body.document_id);
      }
      clients.push({ account, documents });
    }

    const answers: Answer[] = [];
    const timed = async (what: string, request: () => Promise<Reply>, documentId?: string): Promise<Reply> => {
      const began = Date.now();
      const reply = await request();
      answers.push({ what, status: reply.status, code: reply.body?.error?.code, began, ms: Date.now() - began, documentId });
      return reply;
    };
    /** Every L2 sign's answers, in order, by document: a 503 is retried with the same Idempotency-Key. */
    const signs = new Map<string, Reply[]>();
    /** Sign calls under way: when each began. */
    const signing = new Map<string, number>();
    let loadOn = true;
    const client = async ({ account, documents }: (typeof clients)[number]) => {
      for (const documentId of documents) {
        const replies: Reply[] = [];
        signs.set(documentId, replies);
        for (;;) {
          signing.set(documentId, Date.now());
          const reply = await timed(
            'POST /documents/:id/sign',
            () =>
              call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, {
                key: account.key,
                body: { reason: 'Under load' },
                headers: { 'idempotency-key': `pg-${documentId}` },
              }),
            documentId,
          );
          signing.delete(documentId);
          replies.push(reply);
          // As the SDK does: a 503 or a 202 is asked again with the same Idempotency-Key until the final answer.
          if (reply.status !== 503 && reply.status !== 202) break;
          await sleep(250);
        }
        await timed('GET /documents/:id', () => call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: account.key }));
        await timed('GET /documents', () => call(stack.url, 'GET', '/v1/documents?limit=5', { key: account.key }));
        await sleep(300);
      }
      // Reads go on until the load stops, so the recovery is seen from every client.
      while (loadOn) {
        await timed('GET /documents/:id', () => call(stack.url, 'GET', `/v1/documents/${documents[0]}`, { key: account.key }));
        await sleep(200);
      }
    };

    // A prober reads every 100 ms: when reads start failing and when they succeed again.
    const probe = async () => {
      while (loadOn) {
        await timed('probe GET /documents/:id', () =>
          call(stack.url, 'GET', `/v1/documents/${clients[0].documents[0]}`, { key: clients[0].account.key }),
        );
        await sleep(100);
      }
    };
    const loadStarted = Date.now();
    const load = Promise.all([...clients.map(client), probe()]);
    await sleep(STOP_AFTER_MS);
    // The stop comes in the middle of a sign call's wait on its apply (the apply pauses 2 s, the call
    // waits 3 s), so the apply cannot commit before it: that call's key must not stay taken.
    await waitFor(
      'a sign call in the middle of its wait',
      () => [...signing.values()].some((began) => Date.now() - began > 500 && Date.now() - began < 1200),
      20_000,
      50,
    );
    const stopBegun = Date.now();
    await postgres.stop();
    const downAt = Date.now();
    await sleep(DOWN_MS);
    const startBegun = Date.now();
    await postgres.start();
    const upAt = Date.now();
    // The load goes on for a while after the restart, with nothing restarted but the database.
    await waitFor(
      'every client to have signed every document',
      () =>
        [...signs.values()].length === CLIENTS * DOCUMENTS_PER_CLIENT &&
        [...signs.values()].every((r) => r.length > 0 && r.at(-1)!.status !== 503),
      120_000,
    );
    await sleep(3000);
    loadOn = false;
    await load;

    // Never a 500; during the outage 503 service_unavailable, each fast.
    const broken = answers.filter((answer) => answer.status >= 500 && answer.status !== 503);
    assert.deepEqual(
      broken.map((answer) => `${answer.what} ${answer.status} ${answer.code} at ${answer.began - stopBegun} ms`),
      [],
      'no 5xx but 503',
    );
    const unavailable = answers.filter((answer) => answer.status === 503);
    assert.ok(unavailable.length > 0, 'the outage was seen');
    // The calls under way at the stop answered 503 (the key freed, the call run again), 202 (the apply
    // kept with the key, resumed by the retry) or, only where their apply had committed before the
    // server finished stopping (`pg_ctl stop -w` returns then; a retry after a 202 can join an apply
    // that wins that race), 200: no call is answered from a commit the outage stopped.
    const caught = answers.filter(
      (answer) => answer.what === 'POST /documents/:id/sign' && answer.began < stopBegun && answer.began + answer.ms > stopBegun,
    );
    assert.ok(caught.length > 0, 'a sign call was under way at the stop');
    const committedBeforeDown = async (documentId: string) => {
      const applied = await Apply.query(stack.deps.db).findOne({ document_id: documentId, status: 'applied' });
      return applied?.applied_at !== undefined && applied.applied_at !== null && applied.applied_at.getTime() < downAt;
    };
    const unexplained: string[] = [];
    for (const answer of caught) {
      if (answer.status === 503 || answer.status === 202) continue;
      if (answer.status === 200 && (await committedBeforeDown(answer.documentId!))) continue;
      unexplained.push(`${answer.status} after ${answer.ms} ms (began ${stopBegun - answer.began} ms before the stop)`);
    }
    assert.deepEqual(unexplained, [], 'a sign call under way at the stop answered 503, 202 or 200 from a commit before it');
    for (const answer of unavailable) {
      assert.equal(answer.code, 'service_unavailable');
      assert.ok(answer.ms < FAST_MS, `${answer.what} took ${answer.ms} ms to answer 503`);
      assert.ok(
        answer.began + answer.ms >= stopBegun && answer.began <= upAt + 2000,
        `a 503 outside the outage (${answer.began - stopBegun} ms)`,
      );
    }
    // Recovered by itself: whatever began a moment after the restart succeeded.
    const afterwards = answers.filter((answer) => answer.began > upAt + 2000);
    assert.ok(afterwards.length > 0);
    assert.deepEqual(
      afterwards
        .filter((answer) => answer.status >= 400 && answer.code !== 'already_signed')
        .map((answer) => `${answer.what} ${answer.status} ${answer.code} after ${answer.ms} ms`),
      [],
      'every request after the restart succeeds',
    );
    const probes = answers.filter((answer) => answer.what.startsWith('probe'));
    const firstProbeFailure = probes.find((answer) => answer.status === 503);
    const firstProbeSuccess = probes.find((answer) => answer.began >= upAt && answer.status === 200);
    assert.ok(firstProbeSuccess, 'reads succeed again');

    // Nothing lost: every apply lands once; an apply answered 200 was already in the database.
    const documents = clients.flatMap((c) => c.documents);
    await waitFor(
      'every apply to land',
      async () =>
        (await Apply.query(stack.deps.db).whereIn('document_id', documents).where({ status: 'applied' })).length === documents.length,
      120_000,
    ).catch(async (error: Error) => {
      const rows = await Apply.query(stack.deps.db).whereIn('document_id', documents);
      assert.fail(`${error.message}: ${JSON.stringify(rows.map((r) => [r.status, r.error_code, r.error_message]))}\n${worker.output()}`);
    });
    let retried = 0;
    for (const documentId of documents) {
      const rows = await Apply.query(stack.deps.db).where({ document_id: documentId });
      assert.equal(rows.filter((row) => row.status === 'applied').length, 1, `${documentId}: applied once`);
      const replies = signs.get(documentId)!;
      if (replies.length > 1) retried += 1;
      // A retry after a 503 runs the call again: it joins the apply still pending (200/202) or finds it landed (409 already_signed).
      const last = replies.at(-1)!;
      const landedMeanwhile = replies.length > 1 && last.status === 409 && last.body.error.code === 'already_signed';
      assert.ok([200, 202].includes(last.status) || landedMeanwhile, `${documentId}: ${last.status} ${last.text}`);
      if (last.status === 200) {
        const applied = rows.find((row) => row.status === 'applied')!;
        assert.equal(last.body.document_hash, applied.document_hash, `${documentId}: the 200 answer is what the database holds`);
      }
    }
    const pdfs = await inParallel(documents, 4, (documentId) => downloadPdf(stack, owner.key, documentId));
    for (const pdf of pdfs) assert.ok((await pdfsig(pdf)).valid);
    assert.ok(!worker.exitedByItself(), `the worker outlived the outage\n${worker.output()}`);
    assert.equal(worker.starts, 1, 'the worker was never restarted');

    const count = (status: number) => answers.filter((answer) => answer.status === status).length;
    figure(
      SCENARIO,
      `${CLIENTS} clients, ${answers.length} requests over ${Date.now() - loadStarted} ms; stop took ${downAt - stopBegun} ms, down ${startBegun - downAt} ms, start took ${upAt - startBegun} ms`,
    );
    figure(
      SCENARIO,
      `${caught.length} sign call(s) under way at the stop answered ${caught.map((a) => `${a.status} after ${a.ms} ms`).join(', ')}, and their retries with the same Idempotency-Key got the final answer`,
    );
    figure(
      SCENARIO,
      `${count(200)}×200, ${count(202)}×202, ${unavailable.length}×503 (slowest ${Math.max(...unavailable.map((a) => a.ms))} ms), 0×500; reads failed from ${firstProbeFailure ? firstProbeFailure.began - stopBegun : Number.NaN} ms after the stop began and answered again ${firstProbeSuccess.began + firstProbeSuccess.ms - upAt} ms after the start; ${documents.length} applies landed once each (${retried} after a 503 or 202 asked again with the same Idempotency-Key), PDFs valid; the API and the worker were never restarted`,
    );
  });
});
