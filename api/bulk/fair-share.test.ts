import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { temporal } from '@temporalio/proto';
import { BulkSendItem, MailMessage, type Template } from '../../db/models';
import { seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { bulkTaskQueue, bulkWorkflowId } from '../../workflows/bulk/shared';
import { mailWorkflowId } from '../../workflows/mail/shared';

type Event = temporal.api.history.v1.IHistoryEvent;

const RUNNING = 2;

const pair = (tag: string, index: number) => [
  { name: `Ann ${tag} ${index}`, email: `ann-${tag}-${index}@example.test` },
  { name: `Bob ${tag} ${index}`, email: `bob-${tag}-${index}@example.test` },
];

/** The task queue of each activity a workflow scheduled, by activity type. */
async function scheduledQueues(stack: Stack, workflowId: string): Promise<Map<string, Set<string>>> {
  const history = await stack.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const queues = new Map<string, Set<string>>();
  for (const event of (history.events ?? []) as Event[]) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!scheduled) continue;
    const type = scheduled.activityType?.name ?? '';
    queues.set(type, (queues.get(type) ?? new Set()).add(scheduled.taskQueue?.name ?? ''));
  }
  return queues;
}

describe('bulk sends: each tenant’s fair share', () => {
  let stack: Stack;
  let bulky: Account;
  let bulkyNda: Template;
  let other: Account;
  let otherNda: Template;

  before(async () => {
    stack = await startStack({
      env: {
        SVC_BULK_TENANT_RUNNING: String(RUNNING),
        SVC_BULK_CONCURRENCY: '4',
        SVC_BULK_WORKER_SLOTS: '2',
        SVC_APPLY_WAIT_MS: '60000',
      },
    });
    bulky = await createAccount(stack.deps.db, { name: 'Bulk Betty' });
    bulkyNda = (await seedSamples(stack, bulky)).nda;
    other = await createAccount(stack.deps.db, { name: 'Olga Other' });
    otherNda = (await seedSamples(stack, other)).nda;
  });
  after(() => stack.close());

  const post = (account: Account, template: Template, tag: string, count: number): Promise<Reply> =>
    call(stack.url, 'POST', '/v1/documents/bulk', {
      key: account.key,
      body: {
        template_id: template.id,
        name: `Bulk ${tag}`,
        send: true,
        items: Array.from({ length: count }, (_, index) => ({ signers: pair(tag, index) })),
      },
    });
  const bulkOf = async (account: Account, id: string) => {
    const reply = await call(stack.url, 'GET', `/v1/bulk/${id}?limit=1`, { key: account.key });
    assert.equal(reply.status, 200, reply.text);
    return reply.body;
  };

  it('takes a tenant’s bulk sends up to its bound (the rest 429 with Retry-After), and another tenant’s document is made and L2-signed while they run', async () => {
    // Tenant A posts five bulks of 500: two run, three are refused with when to come back.
    const replies: Reply[] = [];
    for (let n = 0; n < 5; n += 1) replies.push(await post(bulky, bulkyNda, `a${n}`, 500));
    const accepted = replies.slice(0, RUNNING);
    for (const reply of accepted) assert.equal(reply.status, 202, reply.text);
    for (const reply of replies.slice(RUNNING)) {
      assertErrorCode(reply, 429, 'rate_limited');
      assert.equal(reply.headers.get('retry-after'), '30');
      assert.deepEqual(reply.body.error.details, [{ path: 'bulk_sends_running', message: `at most ${RUNNING}` }]);
    }
    const ids: string[] = accepted.map((reply) => reply.body.bulk_id);
    try {
      // A's items are being made…
      await waitFor(
        'a first document of tenant A’s bulks',
        async () => (await BulkSendItem.query(stack.deps.db).whereIn('bulk_id', ids).where({ status: 'created' }).first()) ?? undefined,
        120_000,
        200,
      );
      // …when tenant B's document is created and signed by its principal's agent at L2.
      const { account: agent } = await mandatedAccount(stack, { name: 'Petra Principal', label: 'b agent' });
      const document = await sentNda(stack, other, otherNda, await principalOf(stack, agent), { name: 'B’s NDA' });
      const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
        key: agent.key,
        body: { reason: 'Agreed' },
      });
      assert.equal(signed.status, 200, signed.text);
      assert.equal(signed.body.status, 'applied');
      // B was served in turn, not after A's thousand items: A still has items to make.
      const states = await Promise.all(ids.map((id) => bulkOf(bulky, id)));
      const pending = states.reduce((sum, state) => sum + state.pending, 0);
      assert.ok(pending > 0, `tenant A's bulks had ${pending} items left when B's document was signed`);
      for (const state of states) assert.equal(state.status, 'running');

      // A's items ran on the bulk lane's task queue (its workflow's own steps on the service's), and
      // the invitations of a bulk-made document went out there too; B's invitation on the service's queue.
      const queue = stack.deps.temporal.taskQueue;
      const queues = await scheduledQueues(stack, bulkWorkflowId(ids[0]));
      assert.deepEqual([...(queues.get('makeBulkItem') ?? [])], [bulkTaskQueue(queue)]);
      assert.deepEqual([...(queues.get('bulkStarted') ?? [])], [queue]);
      const made = (await BulkSendItem.query(stack.deps.db).whereIn('bulk_id', ids).where({ status: 'created' }).first())!;
      const invitation = await waitFor(
        'an invitation of a bulk-made document',
        async () =>
          (await MailMessage.query(stack.deps.db).where({ document_id: made.document_id!, purpose: 'sign-invite' }).first()) ?? undefined,
        60_000,
      );
      const mailQueues = await waitFor('its delivery to be scheduled', async () => {
        const found = await scheduledQueues(stack, mailWorkflowId(invitation.id)).catch(() => undefined);
        return found?.has('deliverMail') ? found : undefined;
      });
      assert.deepEqual([...mailQueues.get('deliverMail')!], [bulkTaskQueue(queue)]);
      const own = await waitFor(
        'B’s invitation',
        async () =>
          (await MailMessage.query(stack.deps.db).where({ document_id: document.document_id, purpose: 'sign-invite' }).first()) ??
          undefined,
      );
      const ownQueues = await waitFor('its delivery to be scheduled', async () => {
        const found = await scheduledQueues(stack, mailWorkflowId(own.id)).catch(() => undefined);
        return found?.has('deliverMail') ? found : undefined;
      });
      assert.deepEqual([...ownQueues.get('deliverMail')!], [queue]);
    } finally {
      // A's bulks end here: the test does not wait for its thousand documents.
      for (const id of ids) await stack.deps.temporal.client.workflow.getHandle(bulkWorkflowId(id)).terminate('test over');
    }
  });

  it('counts running bulk sends only: once one completes, the tenant may post another', async () => {
    const tenant = await createAccount(stack.deps.db, { name: 'Small Sam' });
    const nda = (await seedSamples(stack, tenant)).nda;
    const first = await post(tenant, nda, 's0', 1);
    const second = await post(tenant, nda, 's1', 1);
    assert.equal(first.status, 202, first.text);
    assert.equal(second.status, 202, second.text);
    await waitFor(
      'the first bulk to complete',
      async () => ((await bulkOf(tenant, first.body.bulk_id)).status === 'completed' ? true : undefined),
      120_000,
      200,
    );
    const third = await post(tenant, nda, 's2', 1);
    assert.equal(third.status, 202, third.text);
  });
});
