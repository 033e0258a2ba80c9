// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Document, type Template, WorkflowStartRow } from '../db/models';
import { seedSamples, sentNda } from '../test/documents';
import { type Account, createAccount } from '../test/factories';
import { call } from '../test/http';
import { type Stack, startStack } from '../test/stack';
import { waitFor } from '../test/wait';
import { documentWorkflowId } from '../workflows/document/shared';
import { recordedArgs, startAfterCommit, startOf, starts } from './workflow-starts';
import type { Workflows } from './workflows';

describe('workflow starts: recorded with their change, made after its commit', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    stack = await startStack();
    owner = await createAccount(stack.deps.db, { name: 'Stella Starter' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  it('a send starts its document workflow only once the send is visible outside its transaction', async () => {
    const api = await stack.withEnv({});
    try {
      // The API's own port, watched: when a start is made, what does the database show to everyone else?
      const real = api.deps.workflows;
      const seen: string[] = [];
      const watched: Workflows = {
        ...real,
        async startDocument(document, ...rest) {
          // On the pool: inside the send's transaction this query would fail (db/transaction-guard.ts), or see the draft.
          seen.push((await Document.query(api.deps.db).findById(document.id))?.status ?? 'missing');
          return real.startDocument(document, ...rest);
        },
      };
      api.deps.workflows = watched;
      const draft = await sentNda({ ...stack, url: api.url }, owner, nda, { name: 'Sam', email: 'sam@example.test' }, { send: false });
      const sent = await call(api.url, 'POST', `/v1/documents/${draft.document_id}/send`, { key: owner.key, body: { confirm: true } });
      assert.equal(sent.status, 200, sent.text);
      assert.deepEqual(seen, ['sent'], 'the start was made after the commit, by the request');
      assert.equal(
        await WorkflowStartRow.query(stack.deps.db)
          .where({ id: `startDocument:${draft.document_id}` })
          .resultSize(),
        0,
      );
      // The workflow's first look found the document sent: its documentSent activity ran once.
      const handle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(draft.document_id));
      const sentAttempts = await waitFor('the workflow to read the sent document', async () => {
        const { events } = await handle.fetchHistory();
        const scheduled = (events ?? []).find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'documentSent');
        const started = (events ?? []).find(
          (event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
        );
        return started && (events ?? []).some((event) => event.activityTaskCompletedEventAttributes) ? started : undefined;
      });
      assert.equal(sentAttempts.activityTaskStartedEventAttributes?.attempt, 1, 'documentSent succeeded on its first attempt');
    } finally {
      await api.close();
    }
  });

  it('a start recorded in a transaction that rolls back is never made, nor left behind', async () => {
    const made: string[] = [];
    const workflows: Workflows = {
      ...stack.deps.workflows,
      async startDocument(document) {
        made.push(document.id);
      },
    };
    const start = starts.document(
      { id: 'doc_rolledback', tenant_id: owner.tenantId, owner_principal_id: owner.principalId, name: 'Never' },
      2,
    );
    await assert.rejects(
      stack.deps.db.transaction(async (trx) => {
        await startAfterCommit({ workflows }, trx, start);
        throw new Error('the change fails');
      }),
      /the change fails/,
    );
    // And one recorded in a savepoint that rolls back, inside a transaction that commits.
    await stack.deps.db.transaction(async (trx) => {
      await trx
        .transaction(async (savepoint) => {
          await startAfterCommit({ workflows }, savepoint, start);
          throw new Error('the savepoint fails');
        })
        .catch(() => undefined);
    });
    assert.deepEqual(made, []);
    assert.equal(await WorkflowStartRow.query(stack.deps.db).where({ id: 'startDocument:doc_rolledback' }).resultSize(), 0);
  });

  it('the arguments survive the row: dates come back as dates, what was left out as left out', () => {
    const expires = new Date('2030-01-02T03:04:05.678Z');
    const offer = starts.offer({
      id: 'ofr_1',
      from_tenant_id: 'ten_a',
      to_tenant_id: 'ten_b',
      from_principal_id: 'prn_a',
      to_principal_id: 'prn_b',
      document_id: 'doc_1',
      expires_at: expires,
    });
    const back = startOf({ kind: offer.kind, args: JSON.parse(JSON.stringify(recordedArgs(offer.args))) });
    assert.deepEqual(back, offer);
    assert.ok((back.args[0] as { expires_at: Date }).expires_at instanceof Date);
    const mail = starts.mail({ id: 'msg_1', tenant_id: null, document_id: null, purpose: 'code' });
    assert.deepEqual(startOf({ kind: mail.kind, args: JSON.parse(JSON.stringify(recordedArgs(mail.args))) }), {
      kind: 'startMail',
      args: [{ id: 'msg_1', tenant_id: null, document_id: null, purpose: 'code' }, undefined],
    });
  });
});
