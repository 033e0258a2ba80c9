import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, DocumentRevision, Event, type Template } from '../db/models';
import { sha256Hex } from '../lib/ids';
import { type Spawned, spawnNpm, stopGroup, waitFor } from '../test/cli';
import { createDocument, downloadPdf, SignerSession, seedSamples } from '../test/documents';
import { type Account, createAccount } from '../test/factories';
import { dataUrl, signaturePng } from '../test/images';
import { pdfsig } from '../test/pdf-tools';
import { type Stack, startStack } from '../test/stack';

/**
 * A worker killed in the middle of an apply: the apply runs as a local activity inside the workflow
 * task that took it, so that workflow task times out on the dead worker, runs again on a worker
 * started afterwards (the update or signal that carried the apply is delivered again), and the
 * apply lands exactly once.
 */
describe('an apply survives a worker killed during it', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;
  const workers: Spawned[] = [];

  before(async () => {
    // The API runs here without a worker; workers are separate processes that share its database,
    // task queue and data dir. Short heartbeats and retries make the recovery quick.
    stack = await startStack({
      worker: false,
      env: { SVC_APPLY_WAIT_MS: '300', SVC_ACTIVITY_HEARTBEAT_MS: '1500', SVC_RETRY_INITIAL_MS: '200', SVC_RETRY_MAX_MS: '1000' },
    });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    for (const worker of workers) await stopGroup(worker.child.pid!, 'SIGKILL').catch(() => undefined);
    await stack.close();
  });

  function startWorker(faults: Record<string, string>): Spawned {
    const { SVC_WORKFLOW_BUNDLE, ...env } = { ...process.env, ...stack.env } as Record<string, string | undefined>;
    const worker = spawnNpm(['run', '--silent', 'worker'], { ...env, SVC_WORKFLOW_BUNDLE, LOG_LEVEL: 'warn', ...faults });
    workers.push(worker);
    return worker;
  }

  /** The apply runs as a local activity inside the doomed worker's workflow task: its fault pause says so in the log. */
  async function applyInFlight(worker: Spawned): Promise<void> {
    await waitFor(
      'the apply to be running on the doomed worker',
      async () => worker.output().includes('apply paused by a test fault'),
      60_000,
    );
  }

  async function recoverOnce(fault: 'SVC_FAULT_APPLY_PAUSE_MS' | 'SVC_FAULT_APPLY_AFTER_COMMIT_PAUSE_MS') {
    const doomed = startWorker({ [fault]: '120000' });
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: `Crash ${fault}`,
      signers: [
        { name: 'Ann', email: `ann-${fault}@example.test` },
        { name: 'Bob', email: `bob-${fault}@example.test` },
      ],
      send: true,
    });
    const id = created.body.document_id;
    const signer = await new SignerSession(stack, created.body.signers[0].sign_url, created.body.signers[0].email).verify();
    const submitted = await signer.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: {},
    });
    // Paused before its commit the apply cannot be done yet (202); paused after it, it may already show (200).
    if (fault === 'SVC_FAULT_APPLY_PAUSE_MS')
      assert.deepEqual([submitted.status, submitted.body.status], [202, 'processing'], submitted.text);
    else assert.ok([200, 202].includes(submitted.status), submitted.text);

    await applyInFlight(doomed);
    await stopGroup(doomed.child.pid!, 'SIGKILL');
    const recovery = startWorker({});

    const apply = await waitFor(
      'the apply to land',
      async () => {
        const row = await Apply.query(stack.deps.db).where({ document_id: id }).first();
        return row?.status === 'applied' ? row : undefined;
      },
      60_000,
    );
    const signed = await Event.query(stack.deps.db).where({ event: 'document.signed' }).whereRaw(`data->>'document_id' = ?`, [id]);
    assert.equal(signed.length, 1, 'document.signed was emitted once');
    const revisions = await DocumentRevision.query(stack.deps.db).where({ document_id: id, apply_id: apply.id });
    assert.equal(revisions.length, 1, 'one revision for the apply');
    const state = await signer.request('GET', '/state');
    assert.equal(state.body.signer.status, 'signed');

    const pdf = await downloadPdf(stack, owner.key, id);
    assert.equal(sha256Hex(pdf), apply.document_hash, 'the served PDF is the apply’s revision');
    const { valid, report } = await pdfsig(pdf);
    assert.ok(valid, report);
    // No worker may be left polling: the next scenario's apply must run on its own doomed worker.
    await stopGroup(recovery.child.pid!, 'SIGTERM');
  }

  it('before the commit: the apply is redone on the next worker, once', async () => {
    await recoverOnce('SVC_FAULT_APPLY_PAUSE_MS');
  });

  it('after the commit: the next worker finds it applied and does not stamp again', async () => {
    await recoverOnce('SVC_FAULT_APPLY_AFTER_COMMIT_PAUSE_MS');
  });
});
