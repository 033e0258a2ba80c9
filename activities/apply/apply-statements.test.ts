// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, AuditEvent, Event, type Template } from '../../db/models';
import { firstSignerOf, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { recordStatements, type Statement } from '../../test/queries';
import { type Stack, startStack } from '../../test/stack';

const writes = (statement: Statement) => /^\s*(with|insert|update|delete)\b/i.test(statement.sql);

/**
 * An apply's writes go to the database as few statements as they can: the record (the apply, the
 * signer's row showing it, the audit line) as one statement, and the commit's writes (the revision,
 * the document, the signer, the apply, the audit line, the event and the notice) as one statement
 * after its row locks, each a data-modifying WITH query of one statement (db/one-statement.ts).
 */
describe('an apply writes in one statement at its record and one at its commit', () => {
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

  it('the record is one statement, the commit’s writes one statement in its transaction, and every row is there', async () => {
    const { documentId, session } = await firstSignerOf(
      stack,
      owner,
      nda,
      { name: 'Ann', email: 'ann-statements@example.test' },
      { name: 'Statements', other: { name: 'Bob', email: 'bob-statements@example.test' } },
    );
    const recording = recordStatements(stack.deps.db);
    const signed = await session.sign().finally(recording.stop);
    const seen = recording.statements;
    assert.equal(signed.status, 200, signed.text);
    const apply = (await Apply.query(stack.deps.db).where({ document_id: documentId }).first())!;
    assert.equal(apply.status, 'applied');
    const naming = (id: string) => (statement: Statement) => statement.bindings.some((binding) => binding === id);

    // The record: the apply inserted in the statement that also shows it on the signer and writes its audit line.
    const recorded = seen.filter((statement) => writes(statement) && /insert into "applies"/i.test(statement.sql));
    assert.equal(recorded.length, 1, recorded.map((statement) => statement.sql).join('\n'));
    assert.match(recorded[0].sql, /update "document_signers"/i);
    assert.match(recorded[0].sql, /insert into "audit_events"/i);
    assert.equal(recorded[0].tx, undefined, 'one statement needs no transaction of its own');

    // The commit: its transaction is the one that inserted the revision; it writes in one statement.
    const revision = seen.find((statement) => /insert into "document_revisions"/i.test(statement.sql) && naming(apply.id)(statement));
    assert.ok(revision?.tx, 'the revision is written in a transaction');
    const committed = seen.filter((statement) => statement.tx === revision.tx && writes(statement));
    assert.equal(committed.length, 1, committed.map((statement) => statement.sql).join('\n'));
    for (const table of ['document_revisions', 'documents', 'document_signers', 'applies', 'audit_events', 'events'])
      assert.match(committed[0].sql, new RegExp(`"${table}"`), table);

    // And what it wrote is all there: the audit lines of the submission and the signature, the event.
    const actions = (await AuditEvent.query(stack.deps.db).where({ document_id: documentId }).orderBy('created_at')).map(
      (line) => line.action,
    );
    assert.ok(actions.includes('signature.submitted') && actions.includes('document.signed'), actions.join(', '));
    const events = await Event.query(stack.deps.db).where({ event: 'document.signed' }).whereRaw(`data->>'document_id' = ?`, [documentId]);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.document_hash, apply.document_hash);
  });
});
