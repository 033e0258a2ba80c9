// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SignerSession, seedSamples, sentNda } from '../../test/documents';
import { createAccount } from '../../test/factories';
import {
  create,
  offered,
  publicDownloads,
  publicGet,
  releasedEvents,
  sender,
  stack,
  upload,
  useTransfersStack,
} from '../../test/fixtures/transfers';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { mandatedAccount, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

describe('transfers: share, sign-to-unlock and accept-to-unlock packages, claims and downloads', () => {
  useTransfersStack();

  it('sign-to-unlock: nothing downloads until the linked document completes; then it is released, once', async () => {
    const { nda } = await seedSamples(stack, sender);
    const principal = await principalOf(stack, sender);
    const document = await sentNda(stack, sender, nda, principal, { name: 'Unlocking NDA', other: { name: 'Otis Other' } });
    const file = await upload(sender, 5);
    const recipient = { email: `una-${Date.now()}@example.test`, name: 'Una' };
    const body = await offered({ name: 'Signed pack', drive_file_ids: [file], recipients: [recipient], document_id: document.document_id });
    assert.equal(body.mode, 'sign');
    assert.equal(body.status, 'offered');
    assert.equal(body.can_release, false);
    const token = body.recipients[0].token;
    assertErrorCode(await publicDownloads(token), 409, 'invalid_state');
    assertErrorCode(
      await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: sender.key }),
      409,
      'invalid_state',
    );

    const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: sender.key,
      body: { reason: 'ours' },
    });
    assert.equal(signed.status, 200, signed.text);
    assert.equal((await publicGet(token)).body.can_release, false, 'one signature is not completion');
    const other = document.signers[1];
    const session = await new SignerSession(stack, other.sign_url, other.email).verify();
    const done = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'typed', image: dataUrl(signaturePng()) },
      values: { 'receiving-title': 'COO' },
    });
    assert.equal(done.status, 200, done.text);
    await waitFor('the release', async () => (await publicGet(token)).body.can_release);
    assert.equal((await publicDownloads(token)).status, 200);
    await waitFor('the unlock workflow to end', async () => {
      const status = await stack.deps.temporal.client.workflow.getHandle(`transfer-${body.transfer_id}`).describe();
      return status.status.name === 'COMPLETED';
    });
    assert.equal(await releasedEvents(body.transfer_id), 1, 'transfer.released exactly once');
  });

  it('sign-to-unlock: a declined document never releases', async () => {
    const { nda } = await seedSamples(stack, sender);
    const decliner = { name: 'Dee Cline', email: `dee-${Date.now()}@example.test` };
    const created = await call(stack.url, 'POST', '/v1/documents', {
      key: sender.key,
      body: {
        template_id: nda.id,
        name: 'Doomed',
        send: true,
        signers: [decliner, { name: 'Ed', email: `ed-${Date.now()}@example.test` }],
      },
    });
    const body = await offered({
      name: 'Never',
      drive_file_ids: [await upload(sender, 1)],
      recipients: [{ email: 'never@example.test', name: 'N' }],
      document_id: created.body.document_id,
    });
    const session = await new SignerSession(stack, created.body.signers[0].sign_url, decliner.email).verify();
    assert.equal((await session.request('POST', '/decline', { reason: 'no' })).status, 200);
    const blocked = await waitFor('the block', async () => {
      const reply = await call(stack.url, 'GET', `/v1/transfers/${body.transfer_id}`, { key: sender.key });
      return reply.body.blocked_reason ? reply.body : undefined;
    });
    assert.equal(blocked.can_release, false);
    assertErrorCode(await publicDownloads(body.recipients[0].token), 409, 'invalid_state');
    assert.equal(await releasedEvents(body.transfer_id), 0);
    assertErrorCode(
      await create({
        name: 'x',
        drive_file_ids: [await upload(sender, 1)],
        recipients: [{ email: 'x@example.test', name: 'X' }],
        document_id: created.body.document_id,
      }),
      409,
      'invalid_state',
    );
  });

  it('accept-to-unlock: released when every recipient accepted (by key or as a guest); claims bind a matching key, others are guests', async () => {
    const { account: ann } = await mandatedAccount(stack, { level: null, name: 'Ann Agent' });
    const guest = { email: `gus-${Date.now()}@example.test`, name: 'Gus Guest' };
    const body = await offered({
      name: 'Accept pack',
      drive_file_ids: [await upload(sender, 2)],
      recipients: [{ email: ann.email, name: 'Ann' }, guest],
      requires_acceptance: true,
    });
    assert.equal(body.mode, 'accept');
    assert.equal(body.requires_acceptance, true);
    const [annToken, gusToken] = body.recipients.map((r: { token: string }) => r.token);

    // Ann's key claims her link: bound to her, she sees it and (after release) mints downloads by id.
    const claimed = await call(stack.url, 'POST', '/v1/transfers/claim', { key: ann.key, body: { token: annToken } });
    assert.equal(claimed.status, 200, claimed.text);
    assert.equal(claimed.body.bound, true);
    assert.equal((await call(stack.url, 'GET', `/v1/transfers/${body.transfer_id}`, { key: ann.key })).body.direction, 'received');
    const received = await call(stack.url, 'GET', '/v1/transfers?direction=received', { key: ann.key });
    assert.ok(received.body.data.some((t: { transfer_id: string }) => t.transfer_id === body.transfer_id));
    // Another principal's key with Gus's token: a guest capability only.
    const stranger = await createAccount(stack.deps.db);
    const guestClaim = await call(stack.url, 'POST', '/v1/transfers/claim', { key: stranger.key, body: { token: gusToken } });
    assert.equal(guestClaim.body.bound, false);
    assertErrorCode(await call(stack.url, 'GET', `/v1/transfers/${body.transfer_id}`, { key: stranger.key }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: stranger.key }), 404, 'not_found');

    const first = await call(stack.url, 'POST', '/v1/transfers/accept', { key: ann.key, body: { token: annToken } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.transfer.can_release, false, 'one of two accepted');
    assertErrorCode(await publicDownloads(gusToken), 409, 'invalid_state');
    const second = await call(stack.url, 'POST', `/v1/public/transfers/${gusToken}/accept`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.can_release, true);
    assert.equal(second.body.recipients_accepted, 2);
    assert.equal((await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: ann.key })).status, 200);
    assert.equal((await publicDownloads(gusToken)).status, 200);
    assert.equal(await releasedEvents(body.transfer_id), 1);
    // Acceptance belongs to accept-to-unlock packages only.
    const share = await offered({ name: 'Share', drive_file_ids: [await upload(sender, 2)], recipients: [guest] });
    assertErrorCode(await call(stack.url, 'POST', `/v1/public/transfers/${share.recipients[0].token}/accept`), 409, 'invalid_state');
  });
});
