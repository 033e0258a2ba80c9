import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import type { OfferActivities } from '../../activities/offers/activities';
import type { OfferStatus } from '../../db/models';
import { connectWorkflowTestServer, type WorkflowTestServer } from '../../test/workflow-server';
import { OFFER_WORKFLOW, type OfferWorkflowInput, offerWorkflowId, wakeSignal } from './shared';
import type { offerWorkflow } from './workflow';

/**
 * The activities' calls in order, by name (one for another offer than the workflow's is marked so), answered
 * from a script: its answers in order, the last repeating.
 */
class Calls {
  readonly list: string[] = [];

  constructor(private readonly id: string) {}

  answer<T extends string>(name: string, id: string, answers: readonly T[]): T {
    const made = this.list.filter((called) => called === name).length;
    this.list.push(id === this.id ? name : `${name} (for ${id}, not the workflow’s)`);
    return answers[Math.min(made, answers.length - 1)];
  }

  async reached(count: number): Promise<void> {
    for (const until = Date.now() + 15_000; this.list.length < count; await sleep(20))
      if (Date.now() > until) throw new Error(`waited for ${count} activity calls, saw ${JSON.stringify(this.list)}`);
  }
}

type Status = OfferStatus | 'abandoned';
interface Script {
  settle: Status[];
  expire?: Status[];
}

function mockedActivities(calls: Calls, script: Script): OfferActivities {
  return {
    async settleOffer(offerId: string) {
      return calls.answer('settleOffer', offerId, script.settle);
    },
    async expireOffer(offerId: string) {
      return calls.answer<Status>('expireOffer', offerId, script.expire ?? ['expired']);
    },
  };
}

/**
 * The timers the workflow started (a condition's timeout is one), each as its duration and the
 * workflow's clock when it was started: the start of the workflow task that started it.
 */
async function timers(handle: WorkflowHandle): Promise<Array<{ ms: number; at: number }>> {
  const { events } = await handle.fetchHistory();
  let at = 0;
  return (events ?? []).flatMap((event) => {
    if (event.workflowTaskStartedEventAttributes) at = tsToMs(event.eventTime);
    const started = event.timerStartedEventAttributes;
    return started ? [{ ms: tsToMs(started.startToFireTimeout), at }] : [];
  });
}

describe('offerWorkflow against mocked activities (no database)', { timeout: 60_000 }, () => {
  let server: WorkflowTestServer;
  let client: Client;

  before(async () => {
    server = await connectWorkflowTestServer();
    ({ client } = server);
  });
  after(() => server?.close());

  /** Starts the workflow for a new offer on a worker of its own (a fresh task queue) and runs `body` while that worker runs. */
  async function run(
    script: Script,
    durations: { expiresInMs: number; recheckMs: number },
    body: (handle: WorkflowHandle<typeof offerWorkflow>, calls: Calls, input: OfferWorkflowInput) => Promise<void>,
  ): Promise<void> {
    const offerId = randomUUID();
    const calls = new Calls(offerId);
    await server.runOnOwnWorker(mockedActivities(calls, script), async (taskQueue) => {
      // expires_at counts from the start, once the worker is up.
      const input: OfferWorkflowInput = {
        offerId,
        expiresAtMs: Date.now() + durations.expiresInMs,
        recheckMs: durations.recheckMs,
        activityTimeoutMs: 5000,
        heartbeatMs: 5000,
        retryInitialMs: 50,
        retryMaxMs: 100,
        activityAttempts: 3,
      };
      const handle = await client.workflow.start<typeof offerWorkflow>(OFFER_WORKFLOW, {
        taskQueue,
        workflowId: offerWorkflowId(offerId),
        args: [input],
      });
      await body(handle, calls, input);
    });
  }

  it('does nothing until woken; a wake whose settle reports a final status ends it with that status', async () => {
    await run({ settle: ['accepted'] }, { expiresInMs: 60_000, recheckMs: 60_000 }, async (handle, calls) => {
      await sleep(500);
      assert.deepEqual(calls.list, []);
      await handle.signal(wakeSignal);
      assert.deepEqual(await handle.result(), { status: 'accepted' });
      assert.deepEqual(calls.list, ['settleOffer']);
    });
  });

  it('a wake that settles nothing final before expires_at keeps waiting without expiring; the next wake settles', async () => {
    const script: Script = { settle: ['acknowledged', 'declined'] };
    await run(script, { expiresInMs: 60_000, recheckMs: 60_000 }, async (handle, calls) => {
      await handle.signal(wakeSignal);
      await calls.reached(1);
      await sleep(300);
      assert.equal((await handle.describe()).status.name, 'RUNNING');
      assert.equal(calls.list.length, 1, JSON.stringify(calls.list));
      await handle.signal(wakeSignal);
      assert.deepEqual(await handle.result(), { status: 'declined' });
      assert.deepEqual(calls.list, ['settleOffer', 'settleOffer']);
    });
  });

  it('at expires_at with no wake, settles, then expires, and ends with what expire reports', async () => {
    await run({ settle: ['pending'], expire: ['expired'] }, { expiresInMs: 1500, recheckMs: 60_000 }, async (handle, calls, input) => {
      assert.deepEqual(await handle.result(), { status: 'expired' });
      assert.ok(Date.now() >= input.expiresAtMs - 20, `ended ${input.expiresAtMs - Date.now()} ms before expires_at`);
      assert.deepEqual(calls.list, ['settleOffer', 'expireOffer']);
      const [wait, ...more] = await timers(handle);
      assert.equal(wait.ms, input.expiresAtMs - wait.at, 'the wait ends at expires_at');
      assert.deepEqual(more, []);
    });
  });

  it('past expires_at, an offer kept open by work in flight is settled and expired again every recheckMs until final', async () => {
    const script: Script = { settle: ['escalated', 'escalated', 'accepted'], expire: ['escalated'] };
    await run(script, { expiresInMs: 1000, recheckMs: 400 }, async (handle, calls, { expiresAtMs }) => {
      assert.deepEqual(await handle.result(), { status: 'accepted' });
      assert.deepEqual(calls.list, ['settleOffer', 'expireOffer', 'settleOffer', 'expireOffer', 'settleOffer']);
      const [wait, ...rechecks] = await timers(handle);
      assert.equal(wait.ms, expiresAtMs - wait.at, 'the first wait ends at expires_at');
      const recheckMs = rechecks.map((timer) => timer.ms);
      assert.deepEqual(recheckMs, [400, 400]);
    });
  });

  it('past expires_at, a wake is acted on at once rather than after recheckMs', async () => {
    const script: Script = { settle: ['escalated', 'declined'], expire: ['escalated'] };
    // A recheck an hour away: only the wake can end the workflow while the test runs.
    await run(script, { expiresInMs: 1000, recheckMs: 3_600_000 }, async (handle, calls) => {
      await calls.reached(2);
      await handle.signal(wakeSignal);
      assert.deepEqual(await handle.result(), { status: 'declined' });
      assert.deepEqual(calls.list, ['settleOffer', 'expireOffer', 'settleOffer']);
    });
  });

  it('an offer whose expires_at passed before the workflow started is settled and expired at once', async () => {
    await run({ settle: ['pending'], expire: ['expired'] }, { expiresInMs: -5000, recheckMs: 60_000 }, async (handle, calls) => {
      assert.deepEqual(await handle.result(), { status: 'expired' });
      assert.deepEqual(calls.list, ['settleOffer', 'expireOffer']);
      const waits = (await timers(handle)).map((timer) => timer.ms);
      assert.deepEqual(waits, [1], 'no wait for an expires_at already past');
    });
  });
});
