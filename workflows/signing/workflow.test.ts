import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { SignRequestActivities } from '../../activities/signing/sign-request-activities';
import type { SignRequestStatus } from '../../db/models';
import { connectWorkflowTestServer, type WorkflowTestServer } from '../../test/workflow-server';
import {
  confirmSignal,
  declineSignal,
  SIGN_REQUEST_WORKFLOW,
  type SignRequestWorkflowInput,
  signRequestSettledUpdate,
  signRequestWorkflowId,
  wakeSignal,
} from './shared';
import type { signRequestWorkflow } from './workflow';

/**
 * The activities' calls in order, by name (one for another sign request than the workflow's is marked so), answered
 * from a script: its answers in order, the last repeating; an Error is thrown.
 */
class Calls {
  readonly list: string[] = [];

  constructor(private readonly id: string) {}

  answer<T>(name: string, id: string, answers: ReadonlyArray<T | Error>): T {
    const made = this.list.filter((called) => called === name).length;
    this.list.push(id === this.id ? name : `${name} (for ${id}, not the workflow’s)`);
    const answer = answers[Math.min(made, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  }

  async reached(count: number): Promise<void> {
    for (const until = Date.now() + 15_000; this.list.length < count; await sleep(20))
      if (Date.now() > until) throw new Error(`waited for ${count} activity calls, saw ${JSON.stringify(this.list)}`);
  }
}

interface Script {
  email?: Array<Error | undefined>;
  expire?: SignRequestStatus[];
  step?: SignRequestStatus[];
}

function mockedActivities(calls: Calls, script: Script): SignRequestActivities {
  return {
    async emailSignRequest(id: string) {
      calls.answer('emailSignRequest', id, script.email ?? [undefined]);
    },
    async expireSignRequest(id: string) {
      return calls.answer('expireSignRequest', id, script.expire ?? ['expired']);
    },
    async stepSignRequest(id: string) {
      return calls.answer('stepSignRequest', id, script.step ?? ['applied']);
    },
    async settleSignRequest(id: string) {
      return calls.answer('settleSignRequest (before the patch only)', id, ['failed']);
    },
  };
}

/** The workflow's clock at its start, and the timers it started (a condition's timeout is one) with its clock then. */
async function clockAndTimers(handle: WorkflowHandle): Promise<{ startedAt: number; timers: Array<{ ms: number; at: number }> }> {
  let at = Number.NaN;
  let startedAt = Number.NaN;
  const timers = ((await handle.fetchHistory()).events ?? []).flatMap((event) => {
    if (event.workflowTaskStartedEventAttributes) at = tsToMs(event.eventTime);
    if (Number.isNaN(startedAt)) startedAt = at;
    return event.timerStartedEventAttributes ? [{ ms: tsToMs(event.timerStartedEventAttributes.startToFireTimeout), at }] : [];
  });
  return { startedAt, timers };
}

const LONG_LIFETIME_MS = 60_000;
const SHORT_LIFETIME_MS = 1500;
const ATTEMPTS = 3;

describe('signRequestWorkflow against mocked activities (no database)', { timeout: 60_000 }, () => {
  let server: WorkflowTestServer;
  let client: Client;

  before(async () => {
    server = await connectWorkflowTestServer();
    ({ client } = server);
  });
  after(() => server?.close());

  /** Starts the workflow for a new request on a worker of its own (a fresh task queue) and runs `body` while that worker runs. */
  async function run<T>(
    script: Script,
    lifetimeMs: number | Partial<SignRequestWorkflowInput> | (() => Partial<SignRequestWorkflowInput>),
    body: (handle: WorkflowHandle<typeof signRequestWorkflow>, calls: Calls) => Promise<T>,
  ): Promise<T> {
    const id = randomUUID();
    const calls = new Calls(id);
    return server.runOnOwnWorker(mockedActivities(calls, script), async (taskQueue) => {
      // Made once the worker is up (a function is called here): a deadline computed before it would
      // be spent by a slow start on a loaded machine.
      const given = typeof lifetimeMs === 'function' ? lifetimeMs() : lifetimeMs;
      const input: SignRequestWorkflowInput = {
        signRequestId: id,
        lifetimeMs: LONG_LIFETIME_MS,
        activityTimeoutMs: 5000,
        heartbeatMs: 5000,
        retryInitialMs: 50,
        retryMaxMs: 100,
        activityAttempts: ATTEMPTS,
        ...(typeof given === 'number' ? { lifetimeMs: given } : given),
      };
      const handle = await client.workflow.start<typeof signRequestWorkflow>(SIGN_REQUEST_WORKFLOW, {
        taskQueue,
        workflowId: signRequestWorkflowId(id),
        args: [input],
      });
      return body(handle, calls);
    });
  }

  it('queues the confirm mail, then on a confirm signal steps the request and answers the status the step reports', async () => {
    await run({ step: ['applied'] }, LONG_LIFETIME_MS, async (handle, calls) => {
      await calls.reached(1);
      await handle.signal(confirmSignal, { ip: '203.0.113.7' });
      assert.deepEqual(await handle.result(), { status: 'applied' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'stepSignRequest']);
    });
  });

  it('on a decline signal settles once and ends with the declined status, never expiring the request', async () => {
    await run({ step: ['declined'] }, LONG_LIFETIME_MS, async (handle, calls) => {
      await calls.reached(1);
      await handle.signal(declineSignal, {});
      assert.deepEqual(await handle.result(), { status: 'declined' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'stepSignRequest']);
    });
  });

  it('a signal while the database still says open changes nothing: it waits on, and the next signal settles', async () => {
    await run({ step: ['open', 'declined'] }, LONG_LIFETIME_MS, async (handle, calls) => {
      await calls.reached(1);
      await handle.signal(confirmSignal, {});
      await calls.reached(2);
      await sleep(300);
      assert.equal((await handle.describe()).status.name, 'RUNNING');
      assert.equal(calls.list.length, 2, JSON.stringify(calls.list));
      await handle.signal(declineSignal, {});
      assert.deepEqual(await handle.result(), { status: 'declined' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'stepSignRequest', 'stepSignRequest']);
    });
  });

  it('with no decision, expires the request once lifetimeMs has passed and answers what expire reports, without settling', async () => {
    await run({ expire: ['expired'] }, SHORT_LIFETIME_MS, async (handle, calls) => {
      assert.deepEqual(await handle.result(), { status: 'expired' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'expireSignRequest']);
      const { startedAt, timers } = await clockAndTimers(handle);
      assert.deepEqual(
        timers.map((timer) => timer.at + timer.ms),
        [startedAt + SHORT_LIFETIME_MS],
        'one wait, ending lifetimeMs after the start',
      );
    });
  });

  it('at expiry a confirmation recorded before the deadline is still carried out: expire says confirming, then a step', async () => {
    await run({ expire: ['confirming'], step: ['failed'] }, SHORT_LIFETIME_MS, async (handle, calls) => {
      assert.deepEqual(await handle.result(), { status: 'failed' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'expireSignRequest', 'stepSignRequest']);
    });
  });

  it('a request whose transaction never committed (not_committed, non-retryable) is abandoned at once', async () => {
    const notCommitted = ApplicationFailure.nonRetryable('Sign request is not committed.', 'not_committed');
    await run({ email: [notCommitted] }, SHORT_LIFETIME_MS, async (handle, calls) => {
      assert.deepEqual(await handle.result(), { status: 'abandoned' });
      assert.deepEqual(calls.list, ['emailSignRequest']);
    });
  });

  it('not_committed thrown retryably, as the activity does, is abandoned once activityAttempts are spent', async () => {
    const notCommitted = ApplicationFailure.retryable('Sign request is not committed (yet).', 'not_committed');
    await run({ email: [notCommitted] }, SHORT_LIFETIME_MS, async (handle, calls) => {
      assert.deepEqual(await handle.result(), { status: 'abandoned' });
      assert.deepEqual(calls.list, Array(ATTEMPTS).fill('emailSignRequest'));
    });
  });

  it('a mail that fails for another reason leaves the request open: it still waits, and settles on the confirm signal', async () => {
    await run({ email: [new Error('SMTP relay down')], step: ['applied'] }, LONG_LIFETIME_MS, async (handle, calls) => {
      await calls.reached(ATTEMPTS);
      await sleep(300);
      assert.equal((await handle.describe()).status.name, 'RUNNING');
      assert.equal(calls.list.length, ATTEMPTS, JSON.stringify(calls.list));
      await handle.signal(confirmSignal, {});
      assert.deepEqual(await handle.result(), { status: 'applied' });
      assert.deepEqual(calls.list, [...Array(ATTEMPTS).fill('emailSignRequest'), 'stepSignRequest']);
    });
  });

  it('a confirmation whose apply is in flight waits in the workflow for the wake-up, and the settled update answers the outcome', async () => {
    // No recheck within the test: only the document workflow's wake-up moves it.
    await run({ step: ['confirming', 'applied'] }, { retryMaxMs: 60_000 }, async (handle, calls) => {
      await calls.reached(1);
      const settled = handle.executeUpdate(signRequestSettledUpdate);
      await handle.signal(confirmSignal, {});
      await calls.reached(2);
      await sleep(300);
      assert.equal((await handle.describe()).status.name, 'RUNNING');
      assert.deepEqual(calls.list, ['emailSignRequest', 'stepSignRequest'], 'no activity waits: one step, then the workflow waits');
      await handle.signal(wakeSignal);
      assert.equal(await settled, 'applied');
      assert.deepEqual(await handle.result(), { status: 'applied' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'stepSignRequest', 'stepSignRequest']);
    });
  });

  it('a lost wake-up costs a recheck: the in-flight confirmation is looked at again every retryMaxMs, on a timer in the history', async () => {
    await run({ step: ['confirming', 'confirming', 'applied'] }, { retryMaxMs: 200 }, async (handle, calls) => {
      await calls.reached(1);
      await handle.signal(confirmSignal, {});
      assert.deepEqual(await handle.result(), { status: 'applied' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'stepSignRequest', 'stepSignRequest', 'stepSignRequest']);
      const { timers } = await clockAndTimers(handle);
      // The lifetime wait is started only when the confirm signal comes after the mail (a race of the test); the rechecks always are.
      assert.deepEqual(
        timers.filter((timer) => timer.ms < 1000).map((timer) => timer.ms),
        [200, 200],
        'two rechecks of retryMaxMs',
      );
      assert.ok(
        timers.every((timer) => timer.ms === 200 || timer.ms > SHORT_LIFETIME_MS),
        'besides them, at most the lifetime wait',
      );
    });
  });

  it('the settled update of a request that already ended is refused (the app reads the database then)', async () => {
    await run({ step: ['declined'] }, LONG_LIFETIME_MS, async (handle, calls) => {
      await calls.reached(1);
      await handle.signal(declineSignal, {});
      assert.deepEqual(await handle.result(), { status: 'declined' });
      await assert.rejects(handle.executeUpdate(signRequestSettledUpdate));
    });
  });

  it('expires at the request’s expires_at (expiresAtMs), the deadline the app and the API read, not lifetimeMs after its start', async () => {
    let expiresAtMs = 0;
    const deadline = () => {
      expiresAtMs = Date.now() + SHORT_LIFETIME_MS;
      return { lifetimeMs: LONG_LIFETIME_MS, expiresAtMs };
    };
    await run({ expire: ['expired'] }, deadline, async (handle, calls) => {
      assert.deepEqual(await handle.result(), { status: 'expired' });
      assert.deepEqual(calls.list, ['emailSignRequest', 'expireSignRequest']);
      const { timers } = await clockAndTimers(handle);
      assert.equal(timers.length, 1);
      assert.ok(Math.abs(timers[0].at + timers[0].ms - expiresAtMs) < 1000, 'the one wait ends at expires_at');
    });
  });
});
