import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, type Template } from '../../db/models';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { dataUrl, signaturePng } from '../../test/images';
import { type Stack, startStack } from '../../test/stack';
import { documentWorkflowId } from '../../workflows/document/shared';

/**
 * A sign request answers from the document workflow: it hands the apply over with the durable
 * signal, then waits on the workflow's `applySettled` update, which completes when the apply commits.
 * The database is read once for the answer, not polled.
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
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: `Update ${label}`,
      signers: [
        { name: 'Ann', email: `ann-${label}@example.test` },
        { name: 'Bob', email: `bob-${label}@example.test` },
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const first = created.body.signers[0];
    const session = await new SignerSession(stack, first.sign_url, first.email).verify();
    const signed = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: {},
    });
    return { documentId: created.body.document_id as string, signed };
  }

  it('the answer is 200 applied, and the workflow history holds the completed applySettled update for that apply', async () => {
    const { documentId, signed } = await sign('one');
    assert.equal(signed.status, 200, signed.text);
    const apply = await Apply.query(stack.deps.db).where({ document_id: documentId }).first();
    assert.equal(apply?.status, 'applied');

    const history = await stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId)).fetchHistory();
    const accepted = (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
    const completed = (history.events ?? []).filter((event) => event.workflowExecutionUpdateCompletedEventAttributes);
    assert.equal(accepted.length, 1, 'one update was accepted');
    const request = accepted[0].workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!;
    assert.equal(request.input?.name, 'applySettled');
    const args = request.input?.args?.payloads?.map((payload) => JSON.parse(Buffer.from(payload.data!).toString('utf8')));
    assert.deepEqual(args, [{ applyId: apply!.id }]);
    assert.equal(completed.length, 1, 'and completed');
    const result = completed[0].workflowExecutionUpdateCompletedEventAttributes!.outcome!.success!.payloads!;
    assert.deepEqual(JSON.parse(Buffer.from(result[0].data!).toString('utf8')), { applyId: apply!.id, status: 'applied' });
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
