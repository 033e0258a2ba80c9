import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BulkSendItem, Document, type Template } from '../db/models';
import { type Spawned, spawnNpm, stopGroup, waitFor } from '../test/cli';
import { seedSamples } from '../test/documents';
import { type Account, createAccount } from '../test/factories';
import { call } from '../test/http';
import { type Stack, startStack } from '../test/stack';

const ITEMS = 12;

/**
 * A worker killed in the middle of a bulk send, each lane's item committed with its document but not
 * reported: those activities time out and run again on a worker started afterwards, which finds the
 * items settled and makes nothing for them; each item ends with exactly one document, every one sent.
 */
describe('a bulk send survives a worker killed during it', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;
  const workers: Spawned[] = [];

  before(async () => {
    // The API runs here without a worker; workers are separate processes sharing its database, task queue and data dir.
    stack = await startStack({
      worker: false,
      env: { SVC_BULK_CONCURRENCY: '3', SVC_ACTIVITY_TIMEOUT_MS: '8000', SVC_RETRY_INITIAL_MS: '200', SVC_RETRY_MAX_MS: '1000' },
    });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    for (const worker of workers) await stopGroup(worker.child.pid!, 'SIGKILL').catch(() => undefined);
    await stack.close();
  });

  function startWorker(faults: Record<string, string> = {}): Spawned {
    const env = { ...process.env, ...stack.env } as Record<string, string | undefined>;
    const worker = spawnNpm(['run', '--silent', 'worker'], { ...env, LOG_LEVEL: 'warn', ...faults });
    workers.push(worker);
    return worker;
  }

  it('resumes on another worker and makes one document per item, also for items whose document committed before the kill', async () => {
    // Each item pauses after its document commits, before its activity reports: killed there.
    const doomed = startWorker({ SVC_FAULT_BULK_ITEM_AFTER_COMMIT_PAUSE_MS: '120000' });
    const items = Array.from({ length: ITEMS }, (_, index) => ({
      signers: [
        { name: `Ann ${index}`, email: `ann-crash-${index}@example.test` },
        { name: `Bob ${index}`, email: `bob-crash-${index}@example.test` },
      ],
    }));
    const started = await call(stack.url, 'POST', '/v1/documents/bulk', {
      key: owner.key,
      body: { template_id: nda.id, name: 'Crash bulk', send: true, items },
    });
    assert.equal(started.status, 202, started.text);
    const bulkId = started.body.bulk_id;
    await waitFor(
      'items paused after their commit on the doomed worker',
      async () => doomed.output().includes('bulk item paused by a test fault'),
      120_000,
    );
    await waitFor(
      'the three lanes’ items committed',
      async () => (await BulkSendItem.query(stack.deps.db).where({ bulk_id: bulkId, status: 'created' })).length >= 3,
      60_000,
    );
    await stopGroup(doomed.child.pid!, 'SIGKILL');
    const atKill = await BulkSendItem.query(stack.deps.db).where({ bulk_id: bulkId, status: 'created' });
    assert.equal(atKill.length, 3, 'each lane’s first item committed, none reported');

    startWorker();
    const done = await waitFor(
      'the bulk completed on the second worker',
      async () => {
        const reply = await call(stack.url, 'GET', `/v1/bulk/${bulkId}`, { key: owner.key });
        return reply.body.status === 'completed' ? reply.body : undefined;
      },
      180_000,
      300,
    );
    assert.equal(done.created, ITEMS, JSON.stringify(done.items));
    assert.equal(done.failed, 0);
    const documents = await Document.query(stack.deps.db).where({ tenant_id: owner.tenantId });
    assert.equal(documents.length, ITEMS, 'one document per item, none twice');
    assert.deepEqual(
      documents.map((document) => document.id).sort(),
      done.items.map((item: { document_id: string }) => item.document_id).sort(),
    );
    assert.ok(documents.every((document) => document.status === 'sent'));
  });
});
