import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { Template } from '../db/models';
import type { Logger } from '../lib/log';
import { buildSampleNda } from '../lib/pdf';
import { applyRunning } from '../test/applies';
import { ROOT } from '../test/cli';
import { seedSamples, sentNda } from '../test/documents';
import type { Account } from '../test/factories';
import { call } from '../test/http';
import { mandatedAccount } from '../test/principal';
import { type Stack, startStack } from '../test/stack';
import { waitFor } from '../test/wait';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { startWorker } from '../worker/worker';
import { documentWorkflowId, statusQuery } from './document/shared';
import { labelledStarts, workLabels } from './labels';
import { workStatusQuery } from './operator-view';
import {
  SEARCH_ATTRIBUTES,
  SvcDeadline,
  SvcKind,
  SvcPrincipalId,
  SvcRelatedId,
  SvcResourceId,
  SvcState,
  SvcTenantId,
} from './search-attributes';
import { signRequestWorkflowId } from './signing/shared';
import { relayWorkflowId } from './webhook/shared';

describe('operators find and read the service’s work in Temporal (search attributes, summaries, status)', { timeout: 180_000 }, () => {
  let stack: Stack;
  let owner: Account;
  let ownerPrincipalId: string;
  let counterparty: Account;
  let counterpartyEmail: string;
  let nda: Template;
  /** The L1 request one test makes, which the saved views of docs/operations.md find. */
  let l1Request: { requestId: string; documentId: string; principalId: string } | undefined;
  let services: Template;

  before(async () => {
    // Sign requests live half an hour: "expiring within the hour" finds them.
    stack = await startStack({ env: { SVC_SIGN_REQUEST_TTL_MS: String(30 * 60_000), SVC_APPLY_WAIT_MS: '30000' } });
    const made = await mandatedAccount(stack, { level: 'L2', name: 'Olga Operator' });
    owner = made.account;
    ownerPrincipalId = made.principal.id;
    const other = await mandatedAccount(stack, { level: 'L2', name: 'Cyrus Counter' });
    counterparty = other.account;
    counterpartyEmail = other.principal.email;
    ({ nda, services } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  /** Visibility follows a moment behind: the list is read until `enough` holds. */
  const listed = (query: string, enough: (found: WorkflowExecutionInfo[]) => boolean = (found) => found.length > 0) =>
    waitFor(`workflows where ${query}`, async () => {
      const found: WorkflowExecutionInfo[] = [];
      for await (const execution of stack.deps.temporal.client.workflow.list({ query })) found.push(execution);
      return enough(found) && found;
    });
  const betweenThem = (name: string, template = nda) =>
    sentNda(
      stack,
      owner,
      template,
      { name: 'Olga Operator', email: owner.email },
      { name, other: { name: 'Cyrus Counter', email: counterpartyEmail } },
    );
  const sign = (account: Account, documentId: string) =>
    call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: account.key, body: { reason: 'agreed terms' } });

  it('a document’s workflow is found by its id, tenant, principal, kind and state, and names itself without an e-mail address', async () => {
    const document = await betweenThem('Operator NDA');
    const [found] = await listed(`SvcResourceId = '${document.document_id}'`, (rows) => rows.length === 1);
    assert.equal(found.workflowId, documentWorkflowId(document.document_id));
    const attributes = found.typedSearchAttributes;
    assert.equal(attributes.get(SvcKind), 'document');
    assert.equal(attributes.get(SvcState), 'sent');
    assert.deepEqual(attributes.get(SvcTenantId), [owner.tenantId]);
    assert.deepEqual(attributes.get(SvcPrincipalId), [ownerPrincipalId]);
    // One tenant's work: the document is among it, and nothing of another tenant is.
    const tenants = await listed(`SvcTenantId = '${owner.tenantId}' AND SvcKind = 'document'`);
    assert.ok(tenants.some((row) => row.workflowId === found.workflowId));
    assert.ok(tenants.every((row) => row.typedSearchAttributes.get(SvcTenantId)?.includes(owner.tenantId)));

    const handle = stack.deps.temporal.client.workflow.getHandle(found.workflowId);
    const described = await handle.describe();
    assert.equal(
      await described.staticSummary(),
      `Document "Operator NDA" (${document.document_id}) of tenant ${owner.tenantId}: 2 signers`,
    );
    const shown = JSON.stringify({ attributes: attributes.getAll(), summary: await described.staticSummary(), memo: described.memo });
    assert.doesNotMatch(shown, /@/, 'no e-mail address reaches what operators see');

    // Once the send committed, it waits for signatures.
    const status = await waitFor('the document waiting for a signature', async () => {
      const now = await handle.query(statusQuery);
      return now.waiting_for !== 'the send to commit' && now;
    });
    assert.equal(status.state, 'sent');
    assert.match(status.waiting_for, /signature to apply/);
    assert.ok(Date.parse(status.since) <= Date.now());
    assert.equal(status.deadline, null);
  });

  it('a state change reaches the attributes: once both sides signed, the document is found as completed', async () => {
    // The services agreement: both roles' fields are ones a stored signature fills.
    const document = await betweenThem('Operator agreement', services);
    assert.equal((await sign(owner, document.document_id)).status, 200);
    const second = await sign(counterparty, document.document_id);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.document_status, 'completed');
    const [found] = await listed(`SvcResourceId = '${document.document_id}' AND SvcState = 'completed'`, (rows) => rows.length === 1);
    assert.equal(found.workflowId, documentWorkflowId(document.document_id));
    // Each apply (a local activity's marker) and the completion say what they did in the history's words.
    const history = await stack.deps.temporal.client.workflow.getHandle(found.workflowId).fetchHistory();
    const summaries = (history.events ?? [])
      .filter(
        (event) => event.activityTaskScheduledEventAttributes || event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
      )
      .map((event) => event.userMetadata?.summary?.data && Buffer.from(event.userMetadata.summary.data).toString());
    assert.ok(summaries.every(Boolean), `every activity has a summary: ${JSON.stringify(summaries)}`);
    assert.equal(summaries.filter((summary) => /^"stamp and seal apply apl_/.test(summary ?? '')).length, 2, JSON.stringify(summaries));
    assert.ok(summaries.includes('"mail the completed copies"'), JSON.stringify(summaries));
  });

  it('an L1 sign request is found among those expiring within the hour and by its document, and says what it waits for', async () => {
    const l1 = await mandatedAccount(stack, { level: 'L1', name: 'Lena Later' });
    const document = await sentNda(stack, owner, nda, l1.principal, { name: 'Operator NDA, L1' });
    const created = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign-requests`, {
      key: l1.account.key,
      body: { reason: 'please confirm' },
    });
    assert.equal(created.status, 201, created.text);
    const requestId: string = created.body.sign_request_id;
    l1Request = { requestId, documentId: document.document_id, principalId: l1.principal.id };
    const withinTheHour = new Date(Date.now() + 3_600_000).toISOString();
    const [found] = await listed(
      `SvcKind = 'sign-request' AND SvcDeadline < '${withinTheHour}' AND SvcRelatedId = '${document.document_id}'`,
      (rows) => rows.length === 1,
    );
    assert.equal(found.workflowId, signRequestWorkflowId(requestId));
    assert.equal(found.typedSearchAttributes.get(SvcResourceId), requestId);
    assert.equal(found.typedSearchAttributes.get(SvcState), 'open');
    assert.deepEqual(found.typedSearchAttributes.get(SvcPrincipalId), [l1.principal.id]);
    assert.deepEqual(found.typedSearchAttributes.get(SvcRelatedId), [document.document_id]);
    assert.equal(found.typedSearchAttributes.get(SvcDeadline)?.toISOString(), new Date(created.body.expires_at).toISOString());

    const handle = stack.deps.temporal.client.workflow.getHandle(found.workflowId);
    const status = await waitFor('the request waiting for the principal', async () => {
      const now = await handle.query(workStatusQuery);
      return now.waiting_for.includes('principal') && now;
    });
    assert.equal(status.state, 'open');
    assert.equal(status.deadline, new Date(created.body.expires_at).toISOString());
    assert.match(
      (await (await handle.describe()).staticSummary()) ?? '',
      new RegExp(`^L1 sign request ${requestId} on ${document.document_id}`),
    );
  });

  it('each saved view of docs/operations.md runs with the temporal CLI and finds what it names', async () => {
    assert.ok(l1Request, 'the sign request of the test before');
    const docs = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const block = docs.split('<!-- operator queries')[1]?.split('```sh')[1]?.split('```')[0] ?? '';
    const lines = block.split('\n').filter((line) => line.startsWith('temporal workflow list --query'));
    assert.ok(lines.length >= 8, `the saved views: ${lines.length}`);
    const values: Record<string, string> = {
      TENANT_ID: owner.tenantId,
      PRINCIPAL_ID: l1Request.principalId,
      DOC_ID: l1Request.documentId,
      IN_ONE_HOUR: new Date(Date.now() + 3_600_000).toISOString(),
      A_DAY_AGO: new Date(Date.now() - 86_400_000).toISOString(),
      WEBHOOK_ID: 'wh_none',
    };
    /** What a saved view must find here, by a word of its query. */
    const expected: Record<string, string> = {
      TENANT_ID: documentWorkflowId(l1Request.documentId),
      PRINCIPAL_ID: signRequestWorkflowId(l1Request.requestId),
      DOC_ID: signRequestWorkflowId(l1Request.requestId),
      IN_ONE_HOUR: signRequestWorkflowId(l1Request.requestId),
    };
    for (const line of lines) {
      const query = /--query "(.*)"$/.exec(line)?.[1];
      assert.ok(query, line);
      const filled = query.replace(/[A-Z][A-Z_]+[A-Z]/g, (word) => values[word] ?? word);
      const wanted = Object.entries(expected).find(([word]) => query.includes(word))?.[1];
      const ids = await waitFor(`the CLI's answer to ${line}`, () => {
        const run = spawnSync(process.env.TEMPORAL_CLI!, ['workflow', 'list', '--query', filled, '--output', 'json', '--limit', '1000'], {
          encoding: 'utf8',
          env: { ...process.env, TEMPORAL_NAMESPACE: stack.config.temporal.namespace },
        });
        assert.equal(run.status, 0, `${line}: ${run.stderr}`);
        const found = (JSON.parse(run.stdout || '[]') as Array<{ execution: { workflowId: string } }>).map(
          (row) => row.execution.workflowId,
        );
        return (!wanted || found.includes(wanted)) && found;
      });
      if (wanted) assert.ok(ids.includes(wanted), `${line} finds ${wanted}`);
    }
  });

  it('the runbook’s actions run with the temporal CLI: a package’s unlock wait cancelled; the relay terminated, then started again by a booting worker', async () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8').replace(/\s*\n\s*/g, ' ');
    const runbook = (start: string) => {
      const command = new RegExp(`\`(${start}[^\`]+)\``).exec(docs)?.[1];
      assert.ok(command, `docs/operations.md has \`${start} …\``);
      return command;
    };
    const cli = (command: string) => {
      const words = (command.match(/"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^"|"$/g, ''));
      assert.equal(words[0], 'temporal');
      const run = spawnSync(process.env.TEMPORAL_CLI!, words.slice(1), {
        encoding: 'utf8',
        env: { ...process.env, TEMPORAL_NAMESPACE: stack.config.temporal.namespace },
      });
      assert.equal(run.status, 0, `${command}: ${run.stderr}`);
    };

    // An accept-to-unlock package, offered: its workflow waits for the recipient.
    const file = await call(stack.url, 'POST', '/v1/assets?filename=contract.pdf', {
      key: owner.key,
      raw: Buffer.from((await buildSampleNda()).pdf),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(file.status, 201, file.text);
    const created = await call(stack.url, 'POST', '/v1/transfers', {
      key: owner.key,
      body: {
        name: 'Waits for Rita',
        drive_file_ids: [file.body.drive_file_id],
        recipients: [{ email: 'rita@example.test', name: 'Rita' }],
        requires_acceptance: true,
      },
    });
    assert.equal(created.status, 201, created.text);
    const transferId: string = created.body.transfer_id;
    const offer = await call(stack.url, 'POST', `/v1/transfers/${transferId}/offer`, { key: owner.key, body: { confirm: true } });
    assert.equal(offer.status, 200, offer.text);
    const [waiting] = await listed(`SvcKind = 'transfer' AND SvcResourceId = '${transferId}' AND ExecutionStatus = 'Running'`);
    assert.equal(waiting.typedSearchAttributes.get(SvcState), 'offered');
    cli(runbook('temporal workflow cancel').replace('XFR_ID', transferId));
    await listed(`SvcResourceId = '${transferId}' AND ExecutionStatus = 'Canceled'`, (rows) => rows.length === 1);

    // The relay: terminated, nothing lost, and the next worker to boot starts it again.
    const relayId = relayWorkflowId(stack.config.temporal.taskQueue);
    const [before] = await listed(`WorkflowId = '${relayId}' AND ExecutionStatus = 'Running'`);
    cli(
      runbook('temporal workflow terminate --workflow-id outbox-relay-')
        .replace('<queue>', stack.config.temporal.taskQueue)
        .replace('…', 'runbook test'),
    );
    await listed(`WorkflowId = '${relayId}' AND ExecutionStatus = 'Terminated'`);
    const booted = await startWorker(stack.deps);
    try {
      const [again] = await listed(`WorkflowId = '${relayId}' AND ExecutionStatus = 'Running'`);
      assert.notEqual(again.runId, before.runId);
      assert.equal(again.typedSearchAttributes.get(SvcKind), 'relay');
    } finally {
      await booted.stop();
    }
  });

  it('the outbox relay is found by its kind', async () => {
    const [relay] = await listed(`SvcKind = 'relay' AND ExecutionStatus = 'Running'`);
    assert.equal(relay.typedSearchAttributes.get(SvcState), 'running');
  });

  it('on a namespace without the attributes, work still starts (with its summary) and the log says so once; the worker’s registration adds them', async () => {
    const namespace = `bare-${randomUUID().slice(0, 8)}`;
    const { connection } = stack.deps.temporal;
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const client = new Client({ connection, namespace });
    const errors: string[] = [];
    const log = { error: (message: string) => errors.push(message), warn() {}, info() {}, debug() {} } as unknown as Logger;
    const start = labelledStarts(log);
    const startOne = (workflowId: string) =>
      waitFor(`a start in ${namespace}`, async () => {
        try {
          return await start(workLabels.relay(workflowId), (labels) =>
            // Nobody polls this task queue: the start is all that is tried.
            client.workflow.start('outboxRelayWorkflow', { taskQueue: `nobody-${namespace}`, workflowId, args: [{}], ...labels }),
          );
        } catch (error) {
          // A namespace just registered takes a moment to be served.
          if (/namespace/i.test((error as Error).message)) return undefined;
          throw error;
        }
      });
    const first = await startOne('relay-a');
    const second = await startOne('relay-b');
    for (const handle of [first, second]) {
      const described = await handle.describe();
      assert.equal(await described.staticSummary(), 'Outbox relay: moves committed events to their deliveries');
      assert.equal(described.typedSearchAttributes.get(SvcKind), undefined);
      await handle.terminate('test over');
    }
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0], /search attributes/);

    assert.deepEqual((await ensureSearchAttributes(connection, namespace)).sort(), SEARCH_ATTRIBUTES.map((key) => key.name).sort());
    assert.deepEqual(await ensureSearchAttributes(connection, namespace), []);
  });
});

describe('a long apply shows where an operator looks', { timeout: 120_000 }, () => {
  let stack: Stack;
  before(async () => {
    // Each apply pauses 4 s after storing its PDFs (a test fault): long enough to look at it in flight.
    stack = await startStack({ env: { SVC_FAULT_APPLY_PAUSE_MS: '4000', SVC_APPLY_WAIT_MS: '500' } });
  });
  after(() => stack.close());

  it('as the document workflow’s running task while it is made, then in its status as processed', async () => {
    const { account, principal } = await mandatedAccount(stack, { level: 'L2', name: 'Hana Heartbeat' });
    const { nda } = await seedSamples(stack, account);
    const document = await sentNda(stack, account, nda, principal, { name: 'Heartbeat NDA' });
    const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: account.key,
      body: { reason: 'agreed' },
    });
    assert.equal(signed.status, 202, signed.text);
    // The apply runs as a local activity inside the workflow task that took it: the UI shows that task
    // as started (and queries wait for it), the apply still pending in the database.
    const handle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(document.document_id));
    const apply = await waitFor('the apply to run in the workflow task', () => applyRunning(stack, document.document_id));
    // Once made, the status lists it as processed, and the history's marker carries its summary.
    await waitFor('the apply to settle', async () => (await handle.query(statusQuery)).processed.includes(apply!.id), 30_000);
    const history = await handle.fetchHistory();
    const marker = (history.events ?? []).find((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    const summary = marker?.userMetadata?.summary?.data && Buffer.from(marker.userMetadata.summary.data).toString();
    assert.equal(summary, `"stamp and seal apply ${apply!.id}"`);
  });
});
