// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, Document, DocumentRevision, DocumentSigner, Event, type Template } from '../../db/models';
import { createLogger } from '../../lib/log';
import { createDocument, SignerSession, seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { revokeMandate } from '../mandates/mandates';
import { l2AppliesToday } from './cap';

/**
 * The checks that can change after an apply was recorded run once, at its commit, on the rows it holds
 * locked. Each apply here pauses between its render and its commit (a test fault), and the change
 * lands in that pause: after the apply read its rows, before its commit.
 */
describe('an apply’s commit checks what changed during its render', () => {
  const lines: string[] = [];
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    stack = await startStack({
      env: { SVC_APPLY_WAIT_MS: '300', SVC_FAULT_APPLY_PAUSE_MS: '3000' },
      // The apply says in the log when it pauses: the test's cue that the render is done.
      log: createLogger('warn', {}, (line) => lines.push(line)),
    });
    owner = await createAccount(stack.deps.db);
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack.close();
  });

  const pauses = () => lines.filter((line) => line.includes('apply paused by a test fault')).length;
  const ended = (documentId: string) =>
    waitFor(
      'the apply to end',
      async () => {
        const apply = await Apply.query(stack.deps.db).where({ document_id: documentId }).first();
        return apply?.status !== 'pending' && apply;
      },
      30_000,
    );

  /** Nothing of the apply landed: the document is at its first revision and the signer still pending. */
  async function nothingSigned(documentId: string, signerId: string) {
    assert.equal(await DocumentRevision.query(stack.deps.db).where({ document_id: documentId }).resultSize(), 1, 'no new revision');
    assert.equal((await DocumentSigner.query(stack.deps.db).findById(signerId))?.status, 'pending');
  }

  it('a document whose expiry passed during the render is refused 410 expired, not signed (a late expiry timer lets nothing in)', async () => {
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'Expires mid-apply',
      signers: [
        { name: 'Ann', email: 'ann-expiry@example.test' },
        { name: 'Bob', email: 'bob-expiry@example.test' },
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const documentId: string = created.body.document_id;
    const ann = created.body.signers[0];
    const session = await new SignerSession(stack, ann.sign_url, ann.email).verify();
    const before = pauses();
    const signed = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: {},
    });
    assert.equal(signed.status, 202, signed.text);
    await waitFor('the apply to be rendered', async () => pauses() > before, 20_000);
    // The expiry passes now: the document is still `sent` (its workflow runs the expiry after the apply).
    await Document.query(stack.deps.db)
      .findById(documentId)
      .patch({ expires_at: new Date(Date.now() - 1000) });

    const apply = await ended(documentId);
    assert.deepEqual([apply.status, apply.error_code], ['rejected', 'expired']);
    await nothingSigned(documentId, apply.signer_id);
    const failed = await Event.query(stack.deps.db)
      .where({ event: 'document.sign_failed' })
      .whereRaw(`data->>'document_id' = ?`, [documentId]);
    assert.deepEqual(
      failed.map((event) => event.data.code),
      ['expired'],
    );
  });

  it('a mandate revoked during the render is refused mandate_inactive, and the L2 slot is given back', async () => {
    const { account, principal, mandate } = await mandatedAccount(stack, { name: 'Rita Revoked' });
    const document = await sentNda(stack, owner, nda, principal);
    const slotsBefore = await l2AppliesToday(stack.deps.db, mandate.id);
    const before = pauses();
    const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, { key: account.key, body: { reason: 'x' } });
    assert.equal(signed.status, 202, signed.text);
    await waitFor('the apply to be rendered', async () => pauses() > before, 20_000);
    await revokeMandate(stack.deps.db, principal, mandate.id, { type: 'principal', id: account.principalId });

    const apply = await ended(document.document_id);
    assert.deepEqual([apply.status, apply.error_code], ['rejected', 'mandate_inactive']);
    await nothingSigned(document.document_id, apply.signer_id);
    assert.equal(await l2AppliesToday(stack.deps.db, mandate.id), slotsBefore, 'the slot is given back');
  });
});
