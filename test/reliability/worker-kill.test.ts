import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeEvent } from '../../activities/events/outbox';
import { Apply, Delivery, Event, type Template, Transfer } from '../../db/models';
import { relayWorkflowId } from '../../workflows/webhook/shared';
import type { Account } from '../factories';
import { call, type Reply } from '../http';
import { pdfsig } from '../pdf-tools';
import { mandatedAccount } from '../principal';
import { Receiver, selfSignedCertificate } from '../receiver';
import { type Stack, startStack } from '../stack';
import { waitFor } from '../wait';
import { figure, inParallel, reliabilitySeed, seededRandom, sleep, WorkerProcess } from './processes';
import { l2Template, sentDocuments, signedOnce, unlockPackages } from './signing-load';

const SCENARIO = 'worker SIGKILL';
const DOCUMENTS = 10;
const TRANSFERS = 3;
const KILLS = 3;
/** The window in which applies start, synthetic events are written and the worker is killed. */
const WINDOW_MS = 20_000;
const SYNTHETIC_EVENTS = 300;

/**
 * The worker (`npm run worker`, its own process) is killed with SIGKILL three times at seeded random
 * moments while L2 applies, webhook deliveries and sign-to-unlock releases are under way, and started
 * again each time. Afterwards every apply landed exactly once, every PDF verifies, every event reached
 * the receiver (twice only across a kill: at least once), and every transfer was released once.
 */
describe('reliability: the worker killed (SIGKILL) during applies, webhook deliveries and transfer releases', () => {
  const seed = reliabilitySeed();
  const random = seededRandom(seed);
  let stack: Stack;
  let worker: WorkerProcess;
  let receiver: Receiver;
  let author: Account;
  let counterpart: Account;
  let template: Template;
  /** Webhooks hear of events from their creation on: the events counted are those after it. */
  let hooksAt: Date;

  before(async () => {
    figure(SCENARIO, `seed ${seed} (RELIABILITY_SEED=${seed} replays these kill moments)`);
    const tls = selfSignedCertificate();
    receiver = await new Receiver(tls).start();
    stack = await startStack({
      worker: false,
      env: {
        // A sign call waits 3 s for its apply, then answers 202 (a dead worker cannot apply).
        SVC_APPLY_WAIT_MS: '3000',
        SVC_ACTIVITY_HEARTBEAT_MS: '1500',
        SVC_ACTIVITY_TIMEOUT_MS: '30000',
        SVC_RETRY_INITIAL_MS: '200',
        SVC_RETRY_MAX_MS: '1000',
        SVC_TRANSFER_RECHECK_MS: '2000',
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
        SVC_WEBHOOK_RETRY_MAX_MS: '1000',
        SVC_WEBHOOK_GIVE_UP_MS: '600000',
        SVC_WEBHOOK_TIMEOUT_MS: '3000',
        SVC_OUTBOX_POLL_MS: '100',
      },
    });
    worker = new WorkerProcess({ ...stack.env, LOG_LEVEL: 'warn' });
    ({ account: author } = await mandatedAccount(stack, { name: 'Ada Author', label: 'author agent' }));
    ({ account: counterpart } = await mandatedAccount(stack, { name: 'Ben Buyer', label: 'buyer agent' }));
    template = await l2Template(stack, author);
    for (const account of [author, counterpart]) {
      const hook = await call(stack.url, 'POST', '/v1/webhooks', { key: account.key, body: { url: receiver.url } });
      assert.equal(hook.status, 201, hook.text);
    }
    hooksAt = new Date();
  });
  after(async () => {
    await worker?.stop().catch(() => undefined);
    await stack?.close();
    await receiver?.stop();
  });

  it('lands every apply once, verifies every PDF, delivers every event and releases every transfer once', async () => {
    worker.start();
    await worker.polling(stack.url);

    // Ten documents from the author, each to be signed by both principals' agents (L2): twenty applies;
    // three sign-to-unlock packages, each on its own document: released when both have signed.
    const documents = await sentDocuments(
      stack,
      template,
      author,
      [
        { name: 'Ada Author', email: author.email },
        { name: 'Ben Buyer', email: counterpart.email },
      ],
      DOCUMENTS,
    );
    const transfers = await unlockPackages(stack, author, documents.slice(0, TRANSFERS), seed);

    // The stream: each apply starts at a random moment of the window, with its own Idempotency-Key.
    const applies = documents.flatMap((documentId) =>
      [author, counterpart].map((account) => ({
        documentId,
        account,
        key: `reliability-${documentId}-${account.keyId}`,
        at: random.between(0, WINDOW_MS),
        first: undefined as Reply | undefined,
      })),
    );
    const sign = (apply: (typeof applies)[number]) =>
      call(stack.url, 'POST', `/v1/documents/${apply.documentId}/sign`, {
        key: apply.account.key,
        body: { reason: 'Reliability run' },
        headers: { 'idempotency-key': apply.key },
      });
    // Kill moments: three, at least 4 s apart, each followed by 0.3–3 s without a worker.
    const kills: Array<{ at: number; downMs: number; killedAt?: number; restartedAt?: number; pollingMs?: number }> = [];
    while (kills.length < KILLS) {
      const at = random.between(1000, WINDOW_MS);
      if (kills.every((kill) => Math.abs(kill.at - at) >= 4000)) kills.push({ at, downMs: random.between(300, 3000) });
    }
    kills.sort((a, b) => a.at - b.at);
    figure(
      SCENARIO,
      `kills planned at ${kills.map((kill) => `${kill.at} ms (down ${kill.downMs} ms)`).join(', ')} of the ${WINDOW_MS} ms window`,
    );

    const started = Date.now();
    const synthetic: string[] = [];
    const emitting = (async () => {
      for (let batch = 0; synthetic.length < SYNTHETIC_EVENTS; batch += 1) {
        await sleep(Math.max(0, (batch * WINDOW_MS) / (SYNTHETIC_EVENTS / 10) - (Date.now() - started)));
        await stack.deps.db.transaction(async (trx) => {
          for (let index = 0; index < 10; index += 1) {
            const tenant = index % 2 === 0 ? author.tenantId : counterpart.tenantId;
            synthetic.push((await writeEvent(trx, tenant, 'contact.accepted', { synthetic: synthetic.length, seed })).id);
          }
        });
      }
    })();
    const killing = (async () => {
      for (const kill of kills) {
        await sleep(Math.max(0, kill.at - (Date.now() - started)));
        kill.killedAt = Date.now();
        await worker.kill();
        await sleep(kill.downMs);
        worker.start();
        kill.restartedAt = Date.now();
        // The next kill waits until this worker polls: each kill hits a working worker.
        kill.pollingMs = await worker.pollingAgain(stack.deps.temporal);
      }
    })();
    const signing = Promise.all(
      applies.map(async (apply) => {
        await sleep(apply.at);
        apply.first = await sign(apply);
      }),
    );
    await Promise.all([emitting, killing, signing]);
    const streamMs = Date.now() - started;
    figure(SCENARIO, `kills made at ${kills.map((kill) => `${kill.killedAt! - started} ms`).join(', ')}`);

    const answers = new Map<number, number>();
    for (const apply of applies) answers.set(apply.first!.status, (answers.get(apply.first!.status) ?? 0) + 1);
    for (const apply of applies)
      assert.ok([200, 202].includes(apply.first!.status), `sign answered ${apply.first!.status}: ${apply.first!.text}`);

    // Everything settles on the last worker: applies, completions, releases and deliveries.
    const settleStarted = Date.now();
    await waitFor(
      'every apply to land and every document to complete',
      async () => {
        const pending = await Apply.query(stack.deps.db).whereIn('document_id', documents).whereNot('status', 'applied').resultSize();
        const completed = await stack.deps.db('documents').whereIn('id', documents).where({ status: 'completed' }).count({ n: '*' });
        return pending === 0 && Number(completed[0].n) === DOCUMENTS;
      },
      180_000,
    ).catch((error: Error) => assert.fail(`${error.message}\n${worker.output()}`));
    const appliedMs = Date.now() - settleStarted;
    await waitFor(
      'every transfer to be released',
      async () => (await Transfer.query(stack.deps.db).whereIn('id', transfers).whereNotNull('released_at')).length === TRANSFERS,
      120_000,
    );
    const ours = () =>
      Event.query(stack.deps.db).whereIn('tenant_id', [author.tenantId, counterpart.tenantId]).where('created_at', '>', hooksAt);
    await waitFor(
      'every event to be delivered',
      async () => {
        const events = await ours();
        const delivered = await Delivery.query(stack.deps.db).whereIn(
          'event_id',
          events.map((event) => event.id),
        );
        return (
          events.every((event) => receiver.ofEvent(event.id).length > 0) &&
          delivered.length === events.length &&
          delivered.every((delivery) => delivery.status === 'delivered')
        );
      },
      240_000,
    ).catch(async (error: Error) => {
      const events = await ours();
      const missing = events.filter((event) => receiver.ofEvent(event.id).length === 0);
      assert.fail(`${error.message}: ${missing.length} of ${events.length} events never reached the receiver\n${worker.output()}`);
    });
    const settledMs = Date.now() - settleStarted;

    const pdfs = await signedOnce(stack, documents, author, counterpart);
    for (const pdf of pdfs) {
      const { valid, report } = await pdfsig(pdf);
      assert.ok(valid, report);
    }

    // The same call again with the same Idempotency-Key: a 200 is replayed as it was; after a 202 the
    // retry answers what became of that apply (applied by now), and no call signs a second time.
    let replayed = 0;
    await inParallel(applies, 4, async (apply) => {
      const again = await sign(apply);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      if (apply.first!.status === 200) assert.deepEqual(again.body, apply.first!.body);
      else assert.equal(again.body.status, 'applied');
      replayed += 1;
    });
    assert.equal(await Apply.query(stack.deps.db).whereIn('document_id', documents).resultSize(), DOCUMENTS * 2, 'no apply added');

    // Transfers: released once each.
    for (const transferId of transfers) {
      const released = (await Event.query(stack.deps.db).where({ event: 'transfer.released' })).filter(
        (event) => event.data.transfer_id === transferId,
      );
      assert.equal(released.length, 1, `${transferId}: transfer.released once`);
    }

    // Webhooks: every event at least once; a second receipt of one only across a kill (the POST was
    // made, the kill came before its record: at least once), never twice while one worker lived.
    const events = await ours();
    let duplicates = 0;
    for (const event of events) {
      const received = receiver.ofEvent(event.id).map((entry) => entry.at);
      assert.ok(received.length >= 1, `${event.id} (${event.event}) reached the receiver`);
      for (let index = 1; index < received.length; index += 1) {
        duplicates += 1;
        const across = kills.some((kill) => received[index - 1] <= kill.killedAt! + 100 && received[index] >= kill.killedAt!);
        assert.ok(across, `${event.id} was received twice with no kill between (${received[index - 1]}, ${received[index]})`);
      }
    }
    // How long webhooks stalled: from each restart to the next receipt at the receiver.
    const receipts = receiver.received.map((entry) => entry.at).sort((a, b) => a - b);
    const stalls = kills.map((kill) => (receipts.find((at) => at >= kill.restartedAt!) ?? Number.NaN) - kill.restartedAt!);
    assert.ok(!worker.exitedByItself(), `the last worker is still running\n${worker.output()}`);

    figure(
      SCENARIO,
      `${worker.kills} kills, ${worker.starts} worker starts; ${applies.length} L2 applies (first answers: ${[...answers]
        .map(([status, count]) => `${count}×${status}`)
        .join(', ')}; ${replayed} replayed by Idempotency-Key), ${DOCUMENTS} documents completed, ${pdfs.length} PDFs valid in pdfsig`,
    );
    figure(
      SCENARIO,
      `${events.length} events (${synthetic.length} synthetic) delivered, ${receiver.received.length} receipts, ${duplicates} duplicate receipts across kills; restarted workers polled after ${kills.map((kill) => `${kill.pollingMs} ms`).join(', ')}; first receipt ${stalls.map((ms) => `${ms} ms`).join(', ')} after each restart; ${TRANSFERS} transfers released once each`,
    );
    figure(SCENARIO, `stream ${streamMs} ms; after it, applies settled in ${appliedMs} ms, everything delivered in ${settledMs} ms`);
  });

  it('hands the outbox relay on within its heartbeat timeout when the worker dies in the middle of it', async () => {
    // The receiver holds its answers (longer than the 3 s delivery timeout): the relay is caught mid-POST.
    receiver.delayMs = 10_000;
    const handle = stack.deps.temporal.client.workflow.getHandle(relayWorkflowId(stack.config.temporal.taskQueue));
    await stack.deps.db.transaction((trx) => writeEvent(trx, author.tenantId, 'contact.accepted', { held: true }));
    await waitFor('the relay to be posting to the receiver', async () => {
      const description = await handle.describe();
      const running = description.raw.pendingActivities?.some((activity) => activity.activityType?.name === 'dispatchOutbox');
      return running && receiver.inFlight > 0;
    });
    const killedAt = Date.now();
    await worker.kill();
    receiver.delayMs = 0;
    worker.start();
    const pollingMs = await worker.pollingAgain(stack.deps.temporal);
    const after = await stack.deps.db.transaction((trx) => writeEvent(trx, author.tenantId, 'contact.accepted', { after: true }));
    const received = await waitFor('the event written after the kill to arrive', () => receiver.ofEvent(after.id)[0], 60_000);
    const handedOnMs = received.at - killedAt;
    figure(
      SCENARIO,
      `relay killed mid-batch: the next event arrived ${handedOnMs} ms after the kill (worker polling after ${pollingMs} ms; activity timeout ${stack.config.durations.activityTimeoutMs} ms, heartbeat ${stack.config.durations.activityHeartbeatMs} ms)`,
    );
    // Without a heartbeat the killed attempt would hold the relay for its whole start-to-close timeout.
    assert.ok(
      handedOnMs < stack.config.durations.activityTimeoutMs - 5000,
      `the relay was handed on ${handedOnMs} ms after the kill, not before its start-to-close timeout`,
    );
  });
});
