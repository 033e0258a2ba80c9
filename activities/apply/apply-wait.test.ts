// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, type Template } from '../../db/models';
import { applyRunning, applyRuns } from '../../test/applies';
import { firstSignerOf, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { applySettledUpdate, documentWorkflowId, statusQuery } from '../../workflows/document/shared';

/** An NDA sent to Ann and Bob, and Ann's verified session on her sign page. */
const sentToAnn = (stack: Stack, owner: Account, nda: Template, label: string) =>
  firstSignerOf(
    stack,
    owner,
    nda,
    { name: 'Ann', email: `ann-${label}@example.test` },
    { name: `Update ${label}`, other: { name: 'Bob', email: `bob-${label}@example.test` } },
  );

/**
 * A sign request answers from the document workflow: one update-with-start (`applySettled`) hands the
 * apply over and completes when the apply commits, made as a local activity inside the workflow task
 * that took the update, with its outcome: one hand-off through Temporal, and the database not polled.
 */
describe('an apply answers from the workflow (update), not by polling', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '60000' } });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack.close();
  });

  async function sign(label: string) {
    const { documentId, session } = await sentToAnn(stack, owner, nda, label);
    return { documentId, signed: await session.sign() };
  }

  it('the answer is 200 applied, and the workflow history holds the completed applySettled update for that apply', async () => {
    const { documentId, signed } = await sign('one');
    assert.equal(signed.status, 200, signed.text);
    const apply = await Apply.query(stack.deps.db).where({ document_id: documentId }).first();
    assert.equal(apply?.status, 'applied');

    // The answer may come from the commit's notice, before the workflow task that ran the apply completes.
    const handle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId));
    const history = await waitFor('the update to complete', async () => {
      const fetched = await handle.fetchHistory();
      return (fetched.events ?? []).some((event) => event.workflowExecutionUpdateCompletedEventAttributes) && fetched;
    });
    const accepted = (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
    const completed = (history.events ?? []).filter((event) => event.workflowExecutionUpdateCompletedEventAttributes);
    assert.equal(accepted.length, 1, 'one update was accepted');
    const request = accepted[0].workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!;
    assert.equal(request.input?.name, 'applySettled');
    const args = request.input?.args?.payloads?.map((payload) => JSON.parse(Buffer.from(payload.data!).toString('utf8')));
    assert.deepEqual(args, [{ applyId: apply!.id }]);
    assert.equal(completed.length, 1, 'and completed');
    const result = completed[0].workflowExecutionUpdateCompletedEventAttributes!.outcome!.success!.payloads!;
    const settled = JSON.parse(Buffer.from(result[0].data!).toString('utf8'));
    assert.deepEqual([settled.applyId, settled.status], [apply!.id, 'applied']);
    // The update carries the outcome the request answers with, so the request reads nothing after it.
    assert.deepEqual([settled.outcome.status, settled.outcome.document_hash], ['applied', apply!.document_hash]);

    // One hand-off: the update carried the apply (no `apply` signal), and the apply ran inside the
    // workflow task that took it (a local activity's marker, no activity task).
    const events = history.events ?? [];
    assert.equal(events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'apply').length, 0, 'no signal');
    assert.equal(
      events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'applySignature').length,
      0,
      'no activity task for the apply',
    );
    assert.equal((await applyRuns(stack, documentId)).length, 1, 'one local run of the apply');
  });

  it('the update completes after the apply committed: the answer carries the sealed revision', async () => {
    const { documentId, signed } = await sign('two');
    assert.equal(signed.status, 200, signed.text);
    const apply = await Apply.query(stack.deps.db).where({ document_id: documentId }).first();
    // What the answer says is what was committed: the hash of the revision it sealed.
    assert.ok(apply?.document_hash);
    assert.equal(JSON.stringify(signed.body).includes(apply.document_hash), true, signed.text);
  });
});

describe('an apply answers as it commits (the commit’s notice), not after the workflow task around it', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    // The local activity pauses after its commit: the workflow task, and so the update, completes 4 s later.
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '60000', SVC_FAULT_APPLY_AFTER_COMMIT_PAUSE_MS: '4000' } });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack.close();
  });

  it('the 200 comes while the update is still open, with what the commit wrote', async () => {
    const { documentId, session } = await sentToAnn(stack, owner, nda, 'notice');
    const signed = await session.sign();
    const handle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId));
    const events = (await handle.fetchHistory()).events ?? [];
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.body.status, 'signed', signed.text);
    // (The update's acceptance enters the history with the workflow task that ran the apply, too.)
    assert.equal(
      events.filter((event) => event.workflowExecutionUpdateCompletedEventAttributes).length,
      0,
      'the answer came before the update completed',
    );
    const apply = await Apply.query(stack.deps.db).where({ document_id: documentId }).first();
    assert.equal(apply?.status, 'applied');
    assert.equal(JSON.stringify(signed.body).includes(apply!.document_hash!), true, signed.text);
    // The workflow goes on after the pause: the update completes with the same outcome.
    const completed = await waitFor(
      'the update to complete',
      async () =>
        ((await handle.fetchHistory()).events ?? []).find((event) => event.workflowExecutionUpdateCompletedEventAttributes)
          ?.workflowExecutionUpdateCompletedEventAttributes,
      30_000,
    );
    const settled = JSON.parse(Buffer.from(completed!.outcome!.success!.payloads![0].data!).toString('utf8'));
    assert.deepEqual([settled.outcome.status, settled.outcome.document_hash], ['applied', apply!.document_hash]);
  });
});

describe('an apply whose second update arrives while it runs', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    // The apply pauses inside its local activity, so a second update reaches the workflow mid-apply.
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '60000', SVC_FAULT_APPLY_PAUSE_MS: '1500' } });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack.close();
  });

  it('is applied by one activity run: the update does not queue the apply in flight a second time', async () => {
    const { documentId, session } = await sentToAnn(stack, owner, nda, 'mid');
    const signing = session.sign();
    const handle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId));
    // Once the apply runs, another waiter asks for the same apply (as a retried request would).
    const apply = await waitFor('the apply to run in the workflow task', () => applyRunning(stack, documentId), 20_000);
    const [signed, settled] = await Promise.all([signing, handle.executeUpdate(applySettledUpdate, { args: [{ applyId: apply.id }] })]);
    assert.equal(signed.status, 200, signed.text);
    assert.deepEqual([settled.applyId, settled.status], [apply.id, 'applied']);
    // Then the workflow goes on (notice, invitations) until nothing is queued or running.
    await waitFor(
      'the workflow to be idle',
      async () =>
        (await handle.query(statusQuery)).queued.length === 0 && ((await handle.describe()).raw.pendingActivities ?? []).length === 0,
      20_000,
    );
    const history = await handle.fetchHistory();
    const runs = await applyRuns(stack, documentId);
    assert.equal(runs.length, 1, `applySignature ran ${runs.length} times for one apply`);
    assert.equal((history.events ?? []).filter((event) => event.workflowExecutionUpdateCompletedEventAttributes).length, 2);
  });
});

describe('a slow apply answers 202 processing by the end of SVC_APPLY_WAIT_MS, never later', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    // The apply takes 6 s; the request waits 1.5 s.
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '1500', SVC_FAULT_APPLY_PAUSE_MS: '6000' } });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack.close();
  });

  it('even while the database does not answer the request’s reads (applies locked by another transaction, or PGlite’s one connection held)', async () => {
    const { documentId, session } = await sentToAnn(stack, owner, nda, 'slow');
    const signing = session.sign();
    await waitFor('the apply to run in the workflow task', () => applyRunning(stack, documentId), 20_000);
    // Nobody can read the applies until the answer came (or a minute passed): the request's last look at its
    // outcome would wait for that, and so would an answer that waited for the database.
    let release!: () => void;
    let released = false;
    const locked = stack.deps.db.transaction(async (trx) => {
      await trx.raw('lock table applies in access exclusive mode');
      await new Promise<void>((resolve) => {
        release = resolve;
        setTimeout(resolve, 60_000);
      });
      released = true;
    });
    try {
      const signed = await signing;
      assert.equal(released, false, 'the answer waited for the database to answer again');
      assert.equal(signed.status, 202, signed.text);
      assert.equal(signed.body.status, 'processing');
    } finally {
      release();
      await locked;
    }
    await waitFor(
      'the apply to land',
      async () => (await Apply.query(stack.deps.db).where({ document_id: documentId }).first())?.status === 'applied',
      30_000,
    );
  });
});
