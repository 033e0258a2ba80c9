import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTemplate } from '../../activities/templates/templates';
import { Apply, MailMessage, Offer, SignRequest, type Template, WorkflowStartRow } from '../../db/models';
import { buildSampleNda } from '../../lib/pdf/samples';
import { documentWorkflowId } from '../../workflows/document/shared';
import { signRequestWorkflowId } from '../../workflows/signing/shared';
import { connect } from '../contacts';
import { downloadPdf } from '../documents';
import { type Account, createAccount } from '../factories';
import { call, type Reply } from '../http';
import { pdfsig } from '../pdf-tools';
import { AppClient, mandatedAccount } from '../principal';
import { type Stack, startStack } from '../stack';
import { waitFor } from '../wait';
import { figure, PersistentTemporal, WorkerProcess } from './processes';

const SCENARIO = 'Temporal restart';
/** How long the Temporal server stays down. */
const OUTAGE_MS = 6000;
/** A call that needs Temporal gives up after this long (SVC_TEMPORAL_CALL_TIMEOUT_MS): an apply with 503, a start is left to the sweep. */
const TEMPORAL_CALL_MS = 2000;
const APPLIES = 4;

/**
 * The Temporal server (a dev server of this file, its state in a SQLite file) is stopped for a few
 * seconds and started again on the same port and file, with an API (in process) and a worker (its
 * own process) running throughout: waits survive (an L1 request is confirmed afterwards, an offer
 * expires afterwards), applies in flight land, meanwhile an apply answers 503 fast, and what starts a
 * workflow (a send, a sign request) answers as usual, its workflow started by the sweep after the restart.
 */
describe('reliability: the Temporal server restarted under running workflows', () => {
  let scratch: string;
  let temporal: PersistentTemporal;
  let stack: Stack;
  let worker: WorkerProcess;
  let owner: Account;
  let template: Template;

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-temporal-restart-'));
    temporal = await PersistentTemporal.create(scratch);
    stack = await startStack({
      worker: false,
      env: {
        TEMPORAL_ADDRESS: temporal.address,
        SVC_TEMPORAL_CALL_TIMEOUT_MS: String(TEMPORAL_CALL_MS),
        SVC_APPLY_WAIT_MS: '5000',
        SVC_ACTIVITY_HEARTBEAT_MS: '2000',
        SVC_ACTIVITY_TIMEOUT_MS: '30000',
        SVC_RETRY_INITIAL_MS: '200',
        SVC_RETRY_MAX_MS: '1000',
        // Offers made before the outage expire after it.
        SVC_OFFER_TTL_MS: String(OUTAGE_MS + 12_000),
      },
    });
    // Each apply pauses 4 s between its seal and its commit (heartbeating): the stop finds them in flight.
    worker = new WorkerProcess({ ...stack.env, LOG_LEVEL: 'warn', SVC_FAULT_APPLY_PAUSE_MS: '4000' });
    owner = await createAccount(stack.deps.db, { name: 'Olga Owner' });
    const sample = await buildSampleNda();
    template = await createTemplate(stack.deps, {
      tenantId: owner.tenantId,
      pdf: sample.pdf,
      definition: { name: 'Restart NDA', roles: sample.roles, widgets: sample.widgets.filter((w) => w.id !== 'receiving-title') },
      createdBy: 'test',
    });
  });
  after(async () => {
    await worker?.stop().catch(() => undefined);
    await stack?.close();
    await temporal?.stop();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** A sent NDA from the owner where `signer` signs the first role and a stranger the second. */
  async function sentTo(signer: Account, name: string): Promise<string> {
    const created = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: {
        template_id: template.id,
        name,
        signers: [
          { name: 'Signer', email: signer.email },
          { name: 'Stranger', email: `stranger-${Date.now()}-${Math.random()}@example.test` },
        ],
        send: true,
      },
    });
    assert.equal(created.status, 201, created.text);
    return created.body.document_id;
  }

  it('keeps every wait, apply and start across the restart; while Temporal is down an apply answers 503 (never 500), a send succeeds', async () => {
    worker.start();
    await worker.polling(stack.url);

    // An L1 request waiting for the principal's confirmation.
    const { account: confirmer } = await mandatedAccount(stack, { level: 'L1', name: 'Lena Later' });
    const l1Document = await sentTo(confirmer, 'Confirm after the restart');
    const requested = await call(stack.url, 'POST', `/v1/documents/${l1Document}/sign-requests`, {
      key: confirmer.key,
      body: { reason: 'Confirm after the restart' },
    });
    assert.equal(requested.status, 201, requested.text);
    const signRequestId = requested.body.sign_request_id;

    // An offer nobody answers: it expires after the restart.
    const { account: offeree } = await mandatedAccount(stack, { level: 'L2', name: 'Otto Offeree' });
    const { fromContact } = await connect(stack, owner, offeree);
    const offerDocument = await sentTo(offeree, 'Offer that expires');

    // Applies in flight when the server stops: the worker is applying them.
    const { account: signer } = await mandatedAccount(stack, { level: 'L2', name: 'Sid Signer' });
    const applyDocuments: string[] = [];
    for (let index = 0; index < APPLIES; index += 1) applyDocuments.push(await sentTo(signer, `In flight ${index + 1}`));
    const sign = (documentId: string, key = `restart-${documentId}`) =>
      call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, {
        key: signer.key,
        body: { reason: 'In flight' },
        headers: { 'idempotency-key': key },
      });
    const inFlight = applyDocuments.map((documentId) => sign(documentId));
    // Each apply runs as a local activity in its document workflow's task, and its fault pause says so in the log.
    await waitFor(
      'every apply to be running on the worker',
      async () => worker.output().split('apply paused by a test fault').length - 1 >= applyDocuments.length,
      30_000,
    );
    // And one more document, to be signed while the server is down.
    const outageDocument = await sentTo(signer, 'Signed during the outage');

    // The offer is made last before the stop, so its lifetime (SVC_OFFER_TTL_MS, the outage and twelve
    // seconds) runs out after the restart however long the setup above took on this machine.
    const offered = await call(stack.url, 'POST', `/v1/documents/${offerDocument}/offers`, {
      key: owner.key,
      body: { contact_id: fromContact, terms: 'Valid for a short while' },
    });
    assert.equal(offered.status, 201, offered.text);
    const offerId = offered.body.offer_id;

    // Stop the server; call what needs it (and what does not) until it is back.
    const stoppedAt = Date.now();
    await temporal.stop();
    const downAt = Date.now();
    const pair = [
      { name: 'Una Unlucky', email: 'una@example.test' },
      { name: 'Vic Unlucky', email: 'vic@example.test' },
    ];
    const lateDocument = await call(stack.url, 'POST', '/v1/documents', {
      key: owner.key,
      body: { template_id: template.id, name: 'Draft during the outage', signers: pair },
    });
    assert.equal(lateDocument.status, 201, 'a draft needs no workflow');
    const outage: Array<{ what: string; reply: Reply; ms: number }> = [];
    const during = async (what: string, request: () => Promise<Reply>) => {
      const begun = Date.now();
      const reply = await request();
      outage.push({ what, reply, ms: Date.now() - begun });
      return reply;
    };
    const idempotent = { 'idempotency-key': `outage-send-${lateDocument.body.document_id}` };
    let round = 0;
    while (Date.now() - downAt < OUTAGE_MS) {
      round += 1;
      await Promise.all([
        during('POST /documents (send)', () =>
          call(stack.url, 'POST', '/v1/documents', {
            key: owner.key,
            body: { template_id: template.id, name: `Outage ${round}`, signers: pair, send: true },
          }),
        ),
        during('POST /documents/:id/send', () =>
          call(stack.url, 'POST', `/v1/documents/${lateDocument.body.document_id}/send`, {
            key: owner.key,
            body: { confirm: true },
            headers: idempotent,
          }),
        ),
        during('POST /documents/:id/sign-requests', () =>
          call(stack.url, 'POST', `/v1/documents/${offerDocument}/sign-requests`, {
            key: offeree.key,
            body: { reason: 'During the outage' },
          }),
        ),
        during('POST /documents/:id/sign', () => sign(outageDocument)),
        during('GET /documents/:id', () => call(stack.url, 'GET', `/v1/documents/${l1Document}`, { key: owner.key })),
      ]);
    }
    const restartBegun = Date.now();
    await temporal.start();
    const upAt = Date.now();

    const failures = outage.filter((entry) => entry.reply.status >= 500 && entry.reply.status !== 503);
    assert.deepEqual(
      failures.map((entry) => `${entry.what}: ${entry.reply.status} ${entry.reply.text}`),
      [],
      'no 5xx but 503 while Temporal is down',
    );
    const answers = (what: string) => outage.filter((entry) => entry.what === what);
    for (const entry of answers('POST /documents/:id/sign')) {
      assert.equal(entry.reply.status, 503, `${entry.what}: ${entry.reply.text}`);
      assert.equal(entry.reply.body.error.code, 'service_unavailable');
      assert.ok(entry.ms < TEMPORAL_CALL_MS + 3000, `${entry.what} answered in ${entry.ms} ms`);
    }
    // What starts a workflow commits and answers: its start is recorded, made once Temporal is back.
    for (const entry of answers('POST /documents (send)')) assert.equal(entry.reply.status, 201, entry.reply.text);
    for (const entry of answers('POST /documents/:id/send')) assert.equal(entry.reply.status, 200, entry.reply.text);
    const [firstRequest, ...laterRequests] = answers('POST /documents/:id/sign-requests');
    assert.equal(firstRequest.reply.status, 201, firstRequest.reply.text);
    for (const entry of laterRequests) assert.equal(entry.reply.status, 409, 'one open request per document and key');
    for (const entry of answers('GET /documents/:id')) assert.equal(entry.reply.status, 200, entry.reply.text);
    const unavailable = outage.filter((entry) => entry.reply.status === 503);
    const outageSent = [
      ...answers('POST /documents (send)').map((entry) => entry.reply.body.document_id as string),
      lateDocument.body.document_id as string,
    ];
    const outageRequest = firstRequest.reply.body.sign_request_id as string;

    // The applies in flight: each answered 200, 202 or 503, and each lands once (a 503 by its retry).
    const firstAnswers = await Promise.all(inFlight);
    for (const answer of firstAnswers) assert.ok([200, 202, 503].includes(answer.status), answer.text);
    const retried = await Promise.all(
      applyDocuments.map((documentId, index) => (firstAnswers[index].status === 503 ? sign(documentId) : Promise.resolve(undefined))),
    );
    for (const answer of retried) if (answer) assert.ok([200, 202].includes(answer.status), answer.text);
    const landed = await waitFor(
      'every apply to land after the restart',
      async () => {
        const rows = await Apply.query(stack.deps.db).whereIn('document_id', applyDocuments).where({ status: 'applied' });
        return rows.length === APPLIES ? rows : undefined;
      },
      90_000,
    ).catch((error: Error) => assert.fail(`${error.message}\n${worker.output()}`));
    const landedMs = Date.now() - upAt;

    // The apply refused during the outage runs when retried with its Idempotency-Key, once.
    const retriedOutage = await sign(outageDocument);
    assert.ok([200, 202].includes(retriedOutage.status), retriedOutage.text);
    await waitFor(
      'the retried apply to land',
      async () => (await Apply.query(stack.deps.db).where({ document_id: outageDocument, status: 'applied' })).length === 1,
      60_000,
    );
    const outageApplies = await Apply.query(stack.deps.db).where({ document_id: outageDocument });
    assert.equal(outageApplies.filter((row) => row.status === 'applied').length, 1, 'applied once');
    assert.ok(
      outageApplies.filter((row) => row.status === 'rejected').every((row) => row.error_code === 'service_unavailable'),
      'the refused ones were rejected as service_unavailable (their L2 slots given back)',
    );
    for (const documentId of applyDocuments) {
      const rows = await Apply.query(stack.deps.db).where({ document_id: documentId });
      assert.equal(rows.filter((row) => row.status === 'applied').length, 1, `${documentId}: applied once`);
      const { valid, report } = await pdfsig(await downloadPdf(stack, owner.key, documentId));
      assert.ok(valid, report);
    }

    // The sign request's workflow is still waiting: the principal confirms now and it applies.
    const handle = stack.deps.temporal.client.workflow.getHandle(signRequestWorkflowId(signRequestId));
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'the L1 wait survived the restart');
    const link = new URL(requested.body.confirm_url).pathname;
    const app = await new AppClient(stack, confirmer.email).login();
    assert.equal((await app.post(`${link}/confirm`, {}, link)).status, 200);
    await waitFor(
      'the confirmed request to be applied',
      async () => (await SignRequest.query(stack.deps.db).findById(signRequestId))?.status === 'applied',
      60_000,
    );
    const confirmedMs = Date.now() - upAt;

    // The offer expires by its workflow, after the restart.
    const expired = await waitFor(
      'the offer to expire',
      async () => {
        const offer = await Offer.query(stack.deps.db).findById(offerId);
        return offer?.status === 'expired' ? offer : undefined;
      },
      60_000,
    );
    assert.ok(expired.expired_at!.getTime() >= upAt, 'it expired after the restart');
    const lateness = expired.expired_at!.getTime() - expired.expires_at.getTime();

    // What was sent during the outage: the sweep started every workflow once Temporal was back, and the
    // invitations went out; the send's Idempotency-Key still answers what it answered then.
    await waitFor(
      'the starts recorded during the outage to be made',
      async () => (await WorkflowStartRow.query(stack.deps.db).resultSize()) === 0,
      90_000,
    ).catch(async (error: Error) =>
      assert.fail(`${error.message}: ${JSON.stringify(await WorkflowStartRow.query(stack.deps.db))}\n${worker.output()}`),
    );
    const startedMs = Date.now() - upAt;
    for (const documentId of outageSent) {
      const documentHandle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId));
      assert.equal((await documentHandle.describe()).status.name, 'RUNNING', `${documentId}: its workflow runs`);
    }
    const requestHandle = stack.deps.temporal.client.workflow.getHandle(signRequestWorkflowId(outageRequest));
    assert.equal((await requestHandle.describe()).status.name, 'RUNNING', 'the sign request made during the outage waits');
    await waitFor(
      'the invitations of every document sent during the outage to go out',
      async () =>
        (await MailMessage.query(stack.deps.db)
          .whereIn('document_id', outageSent)
          .where({ purpose: 'sign-invite', status: 'sent' })
          .resultSize()) ===
        outageSent.length * pair.length,
      60_000,
    );
    const again = await call(stack.url, 'POST', `/v1/documents/${lateDocument.body.document_id}/send`, {
      key: owner.key,
      body: { confirm: true },
      headers: idempotent,
    });
    const sentDuring = answers('POST /documents/:id/send')[0].reply;
    assert.deepEqual([again.status, again.body], [sentDuring.status, sentDuring.body]);
    assert.ok(!worker.exitedByItself(), `the worker outlived the outage\n${worker.output()}`);
    assert.equal(worker.starts, 1, 'the worker was never restarted');

    figure(
      SCENARIO,
      `stop took ${downAt - stoppedAt} ms, down ${restartBegun - downAt} ms, start took ${upAt - restartBegun} ms; ${outage.length} calls during the outage: ${unavailable.length}×503 (slowest ${Math.max(...unavailable.map((e) => e.ms))} ms), ${outage.length - unavailable.length} answered (sends, sign requests, reads), 0×500; the ${outageSent.length} documents sent and the request made during the outage had their workflows ${startedMs} ms after the restart`,
    );
    figure(
      SCENARIO,
      `${APPLIES} applies in flight (first answers ${firstAnswers.map((a) => a.status).join(', ')}) all landed once ${landedMs} ms after the restart (${landed.length} applied, PDFs valid); the L1 request survived and applied ${confirmedMs} ms after the restart once confirmed; the offer expired ${lateness} ms after its expires_at; the worker process was never restarted`,
    );
  });
});
