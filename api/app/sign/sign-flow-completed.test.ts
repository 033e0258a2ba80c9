// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditEvent, DocumentRevision, Event } from '../../../db/models';
import { documentOf, sentNda, signature, stack, titleId, useSignFlowStack, waitForStatus } from '../../../test/fixtures/sign-flow';
import { assertErrorCode } from '../../../test/http';
import { dataUrl, signaturePng } from '../../../test/images';

describe('signing at a sign link', () => {
  useSignFlowStack();

  describe('a completed signing', () => {
    it('lands two concurrent applies on one document, each once, with events and an audit trail', async () => {
      const { id, first, second } = await sentNda();
      await Promise.all([first.verify(), second.verify()]);
      const [a, b] = await Promise.all([
        first.request('POST', '/sign', { consent: true, signature, values: {} }),
        second.request('POST', '/sign', {
          consent: true,
          signature: { method: 'typed', image: dataUrl(signaturePng(90, 30)) },
          values: { [titleId]: 'General Counsel' },
        }),
      ]);
      assert.equal(a.status, 200, a.text);
      assert.equal(b.status, 200, b.text);
      await waitForStatus(id, 'completed');

      const document = await documentOf(id);
      assert.ok(document.signers.every((s: { status: string }) => s.status === 'signed'));
      const revisions = await DocumentRevision.query(stack.deps.db).where({ document_id: id }).orderBy('revision');
      assert.deepEqual(
        revisions.map((r) => r.kind),
        ['original', 'apply', 'apply', 'completion'],
      );
      assert.equal(revisions[3].sealed_sha256, document.document_hash);

      const events = await Event.query(stack.deps.db).whereRaw(`data->>'document_id' = ?`, [id]).orderBy('created_at');
      assert.deepEqual(
        events.map((e) => e.event),
        ['document.signed', 'document.signed', 'document.completed'],
      );
      const signed = events.filter((e) => e.event === 'document.signed').map((e) => e.data as Record<string, any>);
      assert.deepEqual(signed.map((d) => d.principal.email).sort(), document.signers.map((s: { email: string }) => s.email).sort());
      // The chain of hashes: each apply's pre_sign_hash is the PDF the previous step left, its document_hash the next.
      const sealed = revisions.map((r) => r.sealed_sha256);
      assert.deepEqual(signed.map((d) => d.pre_sign_hash).sort(), [sealed[0], sealed[1]].sort());
      assert.deepEqual(signed.map((d) => d.document_hash).sort(), [sealed[1], sealed[2]].sort());
      for (const data of signed) {
        assert.equal(data.agent, null);
        assert.equal(data.mandate_id, null);
      }
      const completed = events[2].data as Record<string, any>;
      assert.equal(completed.final_sha256, document.document_hash);
      assert.equal(completed.original_sha256, document.original_sha256);
      assert.equal(completed.signers.length, 2);

      const actions = (await AuditEvent.query(stack.deps.db).where({ document_id: id }).orderBy('created_at')).map((a) => a.action);
      for (const action of [
        'document.created',
        'document.sent',
        'sign.code_sent',
        'sign.email_verified',
        'signature.submitted',
        'document.signed',
        'document.completed',
      ]) {
        assert.ok(actions.includes(action), `audit trail lacks ${action}: ${actions.join(', ')}`);
      }
      assertErrorCode(await first.request('POST', '/sign', { consent: true, signature, values: {} }), 409, 'already_signed');
    });
  });
});
