import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Event } from '../../db/models';
import { createAccount } from '../../test/factories';
import { type Stack, startStack } from '../../test/stack';
import { writeEvent } from './outbox';

describe('the outbox orders events as they were written', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ worker: false });
  });
  after(() => stack.close());

  it('an event written by a transaction that began earlier and waited comes after the event it waited for', async () => {
    const { db } = stack.deps;
    const { tenantId } = await createAccount(db);
    const documentId = `doc-${Date.now()}`;
    // The completion's transaction begins, then waits (for the last apply's lock, in the service) …
    const completion = await db.transaction();
    await completion.raw('select 1');
    await sleep(50);
    // … while the last apply writes its event and commits.
    await db.transaction((apply) => writeEvent(apply, tenantId, 'document.signed', { document_id: documentId }));
    await writeEvent(completion, tenantId, 'document.completed', { document_id: documentId });
    await completion.commit();

    const events = await Event.query(db).whereRaw(`data->>'document_id' = ?`, [documentId]).orderBy('created_at').orderBy('id');
    assert.deepEqual(
      events.map((event) => event.event),
      ['document.signed', 'document.completed'],
    );
  });
});
