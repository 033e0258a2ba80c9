// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDocument } from '../../test/documents';
import { assertErrorCode, call } from '../../test/http';
import { inSeconds, lifecycleWorld, unique } from '../../test/lifecycle';
import { AppClient } from '../../test/principal';
import { waitFor } from '../../test/wait';
import { offerWorkflowId } from '../../workflows/offer/shared';
import { signRequestWorkflowId } from '../../workflows/signing/shared';
import { transferWorkflowId } from '../../workflows/transfer/shared';

/** How a sent document ends before it is signed: it expires, or its owner voids it; the open work on it ends with it (its schedule: reminders.test.ts). */
describe('a sent document’s expiry and void', () => {
  const world = lifecycleWorld();

  describe('expiry', () => {
    it('at expires_at: expired, its sign links say so, the L1 request and the offer expire, the package is blocked, document.expired is delivered', async () => {
      // Room for the first send of a fresh stack (the first test of this file: nothing warmed it up) before it expires.
      const work = await world.ndaWithOpenWork({ expires_at: inSeconds(15) });
      const document = await waitFor(
        'the document to expire',
        async () => {
          const reply = await call(world.stack.url, 'GET', `/v1/documents/${work.id}`, { key: world.alice.key });
          return reply.body.status === 'expired' ? reply.body : undefined;
        },
        30_000,
      );
      assert.ok(document.expired_at);
      assert.deepEqual(await world.workflowEnd(work.id), { status: 'expired' });
      const page = await world.signLink(work.carlLink);
      assert.equal(page.status, 410);
      assert.match(await page.text(), /This document expired/);
      const code = await call(world.stack.url, 'POST', `${new URL(work.carlLink).pathname}/code`);
      assertErrorCode(code, 410, 'expired');
      const request = await call(world.stack.url, 'GET', `/v1/sign-requests/${work.requestId}`, { key: world.bob.key });
      assert.equal(request.body.status, 'expired');
      assert.equal(request.body.error.code, 'expired');
      const offer = await call(world.stack.url, 'GET', `/v1/offers/${work.offerId}`, { key: world.alice.key });
      assert.equal(offer.body.status, 'expired');
      const transfer = await waitFor('the package to be blocked', async () => {
        const reply = await call(world.stack.url, 'GET', `/v1/transfers/${work.transferId}`, { key: world.alice.key });
        return reply.body.blocked_reason ? reply.body : undefined;
      });
      assert.equal(transfer.can_release, false);
      assert.match(transfer.blocked_reason, /expired/);
      await world.ended([signRequestWorkflowId(work.requestId), offerWorkflowId(work.offerId), transferWorkflowId(work.transferId)]);
      const [event] = await world.delivered('document.expired', (data) => data.document_id === work.id);
      assert.equal(event.data.expires_at, document.expires_at);
      await world.delivered('offer.expired', (data) => data.offer_id === work.offerId);
      assert.equal((await world.auditOf(work.id, 'document.expired')).length, 1);
      assertErrorCode(
        await call(world.stack.url, 'POST', `/v1/documents/${work.id}/void`, { key: world.alice.key, body: { reason: 'late' } }),
        409,
        'invalid_state',
      );
      assertErrorCode(
        await call(world.stack.url, 'POST', `/v1/documents/${work.id}/remind`, { key: world.alice.key }),
        409,
        'invalid_state',
      );
    });
  });

  describe('void', () => {
    it('voids a sent document: the reason on its sign links, the L1 request and offer ended, the package cancelled, signers mailed, document.voided delivered', async () => {
      const work = await world.ndaWithOpenWork();
      const path = `/v1/documents/${work.id}/void`;
      assertErrorCode(await call(world.stack.url, 'POST', path, { key: world.alice.key, body: {} }), 400, 'invalid_request');
      assertErrorCode(
        await call(world.stack.url, 'POST', path, { key: world.alice.key, body: { reason: 'x'.repeat(1001) } }),
        400,
        'invalid_request',
      );
      assertErrorCode(
        await call(world.stack.url, 'POST', path, { key: world.stranger.key, body: { reason: 'Not yours' } }),
        404,
        'not_found',
      );
      // Bob signs it (inbound) but it is not his account's document.
      assertErrorCode(await call(world.stack.url, 'POST', path, { key: world.bob.key, body: { reason: 'Not mine' } }), 404, 'not_found');

      const voided = await call(world.stack.url, 'POST', path, { key: world.alice.key, body: { reason: 'Terms changed <b>a lot</b>' } });
      assert.equal(voided.status, 200, voided.text);
      assert.equal(voided.body.status, 'voided');
      assert.equal(voided.body.void_reason, 'Terms changed <b>a lot</b>');
      assert.ok(voided.body.voided_at);
      assert.deepEqual(await world.workflowEnd(work.id), { status: 'settled' });

      const page = await world.signLink(work.carlLink);
      assert.equal(page.status, 410);
      const text = await page.text();
      assert.match(text, /This document was voided/);
      assert.match(text, /Terms changed &lt;b&gt;a lot&lt;\/b&gt;/);
      const request = await call(world.stack.url, 'GET', `/v1/sign-requests/${work.requestId}`, { key: world.bob.key });
      assert.equal(request.body.status, 'expired');
      assert.match(request.body.error.message, /voided.*Terms changed/);
      const offer = await call(world.stack.url, 'GET', `/v1/offers/${work.offerId}`, { key: world.alice.key });
      assert.equal(offer.body.status, 'expired');
      const transfer = await call(world.stack.url, 'GET', `/v1/transfers/${work.transferId}`, { key: world.alice.key });
      assert.equal(transfer.body.status, 'cancelled');
      await world.ended([signRequestWorkflowId(work.requestId), offerWorkflowId(work.offerId), transferWorkflowId(work.transferId)]);
      for (const email of [world.bobPrincipal.email, work.carl.email]) {
        const mail = await waitFor(`the void mail to ${email}`, () => world.stack.smtp!.latest(email, 'document-voided'));
        assert.match(mail.text, /Terms changed <b>a lot<\/b>/);
      }
      const [event] = await world.delivered('document.voided', (data) => data.document_id === work.id);
      assert.deepEqual(event.data.voided_by, { type: 'agent', id: world.alice.keyId });
      assert.equal(event.data.reason, 'Terms changed <b>a lot</b>');
      const [line] = await world.auditOf(work.id, 'document.voided');
      assert.equal(line.actor_type, 'agent');
      assert.deepEqual((line.data as any).transfers, [work.transferId]);

      assertErrorCode(await call(world.stack.url, 'POST', path, { key: world.alice.key, body: { reason: 'again' } }), 409, 'invalid_state');
      const signed = await call(world.stack.url, 'POST', `/v1/documents/${work.id}/sign-requests`, {
        key: world.bob.key,
        body: { reason: 'late' },
      });
      assert.equal(signed.status, 409, signed.text);
    });

    it('in the app, only the owner principal voids (a signer gets 403 not_owner, anyone else 404) and is sent back to the document', async () => {
      const created = await createDocument(world.stack, world.alice, {
        template_id: world.nda.id,
        name: 'App void',
        signers: [{ name: world.bobPrincipal.name, email: world.bobPrincipal.email }, unique('Dan Other')],
        send: true,
      });
      const id = created.body.document_id;
      const [owner, signer, outsider] = await Promise.all([
        new AppClient(world.stack, world.alice.email).login(),
        new AppClient(world.stack, world.bob.email).login(),
        new AppClient(world.stack, world.stranger.email).login(),
      ]);
      const path = `${owner.appPath}/documents/${id}/void`;
      const from = `${owner.appPath}/documents`;
      assert.equal((await owner.post(path, { reason: 'no token' })).status, 400);
      assert.equal((await signer.post(path, { reason: 'mine?' }, from)).status, 403);
      assert.equal((await outsider.post(path, { reason: 'mine?' }, from)).status, 404);
      assert.equal((await owner.post(`${owner.appPath}/documents/doc_nosuchdocument0000/void`, { reason: 'x' }, from)).status, 404);
      assert.equal((await owner.post(path, { reason: '' }, from)).status, 400);
      const done = await owner.post(path, { reason: 'Sent by mistake' }, from);
      assert.equal(done.status, 302);
      assert.equal(done.headers.get('location'), `${owner.appPath}/documents/${id}?done=voided`);
      const read = await call(world.stack.url, 'GET', `/v1/documents/${id}`, { key: world.alice.key });
      assert.equal(read.body.status, 'voided');
      assert.equal(read.body.void_reason, 'Sent by mistake');
      const [event] = await world.delivered('document.voided', (data) => data.document_id === id);
      assert.deepEqual(event.data.voided_by, { type: 'principal', id: world.alice.principalId });
    });
  });
});
