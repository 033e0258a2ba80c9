import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { l2AppliesToday } from '../../activities/apply/cap';
import {
  Apply,
  Document,
  MailMessage,
  type Mandate,
  Offer,
  type Principal,
  SignRequest,
  type Template,
  Transfer,
  WorkflowStartRow,
} from '../../db/models';
import { connect } from '../../test/contacts';
import { latestMail, type SentNdaOptions, SignerSession, seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { freePort } from '../../test/ports';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { documentWorkflowId } from '../../workflows/document/shared';
import { mailWorkflowId } from '../../workflows/mail/shared';
import { offerWorkflowId } from '../../workflows/offer/shared';
import { signRequestWorkflowId } from '../../workflows/signing/shared';
import { transferWorkflowId } from '../../workflows/transfer/shared';

/**
 * A route that hands work to a workflow and waits on it (an apply) answers 503 while Temporal is
 * unreachable, leaving nothing behind. A route that starts a workflow answers as usual: its change
 * committed with the start recorded beside it, and the outbox relay's sweep (in the stack's worker,
 * whose Temporal is up) makes the start later (docs/decisions/0045-workflow-starts-after-commit.md).
 */
describe('Temporal unreachable: applies answer 503 leaving nothing behind; starts are made later by the sweep', () => {
  let stack: Stack;
  let down: { url: string; close(): Promise<void> };
  let account: Account;
  let principal: Principal;
  let mandate: Mandate;
  let nda: Template;

  before(async () => {
    stack = await startStack();
    // A second API on the same database whose Temporal address answers nothing.
    down = await stack.withEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, SVC_TEMPORAL_CALL_TIMEOUT_MS: '2000' });
    ({ account, principal, mandate } = await mandatedAccount(stack, { level: 'L2', name: 'Una Unreachable' }));
    ({ nda } = await seedSamples(stack, account));
  });
  after(async () => {
    await down.close();
    await stack.close();
  });

  /**
   * The start `key` was recorded and not made by the request (Temporal unreachable): the sweep makes it
   * later, after which the row is gone and the workflow exists.
   */
  async function startedLater(key: string, workflowId: string): Promise<void> {
    const row = await WorkflowStartRow.query(stack.deps.db).findById(key);
    assert.ok(row && row.attempts >= 1, `${key}: recorded, its start tried and deferred`);
    await waitFor(`the sweep to make ${key}`, async () => !(await WorkflowStartRow.query(stack.deps.db).findById(key)), 60_000);
    await stack.deps.temporal.client.workflow.getHandle(workflowId).describe();
  }

  /** The account's own NDA: its principal signs first, a fresh counterparty second. */
  const ownNda = (options: SentNdaOptions = {}) =>
    sentNda(stack, account, nda, principal, { name: 'Reachable NDA', other: { name: 'Vic' }, ...options });

  it('POST /documents with send: true sends; its workflow starts later and the invitations go out', async () => {
    const vic = `vic-${Date.now()}-${Math.random()}@example.test`;
    const reply = await call(down.url, 'POST', '/v1/documents', {
      key: account.key,
      body: {
        template_id: nda.id,
        name: `Sent while down ${Date.now()}`,
        signers: [
          { name: principal.name, email: principal.email },
          { name: 'Vic', email: vic },
        ],
        send: true,
      },
    });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.status, 'sent');
    await startedLater(`startDocument:${reply.body.document_id}`, documentWorkflowId(reply.body.document_id));
    await waitFor('the invitation', () => latestMail(stack, vic, 'sign-invite'), 60_000);
  });

  it('POST /documents/:id/send sends the draft; its workflow starts later', async () => {
    const draft = await ownNda({ name: 'Draft', send: false });
    const sent = await call(down.url, 'POST', `/v1/documents/${draft.document_id}/send`, { key: account.key, body: { confirm: true } });
    assert.equal(sent.status, 200, sent.text);
    assert.equal((await Document.query(stack.deps.db).findById(draft.document_id))?.status, 'sent');
    await startedLater(`startDocument:${draft.document_id}`, documentWorkflowId(draft.document_id));
  });

  it('POST /documents/:id/sign leaves no pending apply and gives the L2 slot back', async () => {
    const document = await ownNda();
    const before = await l2AppliesToday(stack.deps.db, mandate.id);
    assertErrorCode(
      await call(down.url, 'POST', `/v1/documents/${document.document_id}/sign`, { key: account.key, body: { reason: 'while down' } }),
      503,
      'service_unavailable',
    );
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id, status: 'pending' }).resultSize(), 0);
    assert.equal(await l2AppliesToday(stack.deps.db, mandate.id), before);
    const retried = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: account.key,
      body: { reason: 'back up' },
    });
    assert.equal(retried.status, 200, retried.text);
  });

  it('POST /documents/:id/sign leaves no call towards Temporal behind its 503: the API closes right after without an error', async () => {
    // An API of its own, closed right after the answer: a call still retrying on its connection would
    // throw "Channel has been shut down" from a timer once the connection is closed.
    const closing = await stack.withEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, SVC_TEMPORAL_CALL_TIMEOUT_MS: '1000' });
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const document = await ownNda();
      assertErrorCode(
        await call(closing.url, 'POST', `/v1/documents/${document.document_id}/sign`, { key: account.key, body: { reason: 'closing' } }),
        503,
        'service_unavailable',
      );
      await closing.close();
      await new Promise((resolve) => setTimeout(resolve, 3000));
    } finally {
      process.off('uncaughtException', record);
    }
    assert.deepEqual(
      uncaught.map((error) => (error as Error).message),
      [],
    );
  });

  it('POST /documents/:id/sign-requests opens the request; its workflow starts later (its expiry a date again)', async () => {
    const { account: l1, principal: signer } = await mandatedAccount(stack, { level: 'L1' });
    const inbound = await sentNda(stack, account, nda, signer, { name: 'For L1', other: { name: 'W' } });
    const requested = await call(down.url, 'POST', `/v1/documents/${inbound.document_id}/sign-requests`, {
      key: l1.key,
      body: { reason: 'while down' },
    });
    assert.equal(requested.status, 201, requested.text);
    const id = requested.body.sign_request_id;
    await startedLater(`startSignRequest:${id}`, signRequestWorkflowId(id));
    assert.equal((await SignRequest.query(stack.deps.db).findById(id))?.status, 'open');
  });

  it('the sign page’s submit leaves no pending apply', async () => {
    const document = await ownNda();
    const signer = document.signers[1];
    const session = await new SignerSession(stack, signer.sign_url, signer.email).verify();
    const body = {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: { 'receiving-title': 'Director' },
    };
    const reply = await call(down.url, 'POST', `${session.path}/sign`, { body, headers: { cookie: session.cookie } });
    assertErrorCode(reply, 503, 'service_unavailable');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id, status: 'pending' }).resultSize(), 0);
    assert.equal((await session.request('POST', '/sign', body)).status, 200);
  });

  it('contacts and offers: an invitation and an offer are made (their workflows later), an L2 accept leaves nothing behind', async () => {
    const {
      account: other,
      principal: otherPrincipal,
      mandate: otherMandate,
    } = await mandatedAccount(stack, {
      level: 'L2',
      name: 'Ola Offeree',
    });
    const invitee = await createAccount(stack.deps.db, { name: 'Ivy Invited' });
    const invited = await call(down.url, 'POST', '/v1/contacts', { key: account.key, body: { email: invitee.email, name: 'Ivy' } });
    assert.equal(invited.status, 201, invited.text);
    const mail = (await MailMessage.query(stack.deps.db).findOne({ to_address: invitee.email, purpose: 'contact-invite' }))!;
    await startedLater(`startMail:${mail.id}`, mailWorkflowId(mail.id));
    await waitFor('the contact invitation', () => latestMail(stack, invitee.email, 'contact-invite'), 60_000);

    const { fromContact } = await connect(stack, account, other);
    const document = await sentNda(stack, account, nda, otherPrincipal, { name: 'Offered while down', other: { name: 'Wes' } });
    const path = `/v1/documents/${document.document_id}/offers`;
    const body = { contact_id: fromContact, terms: 'As drafted' };
    const made = await call(down.url, 'POST', path, { key: account.key, body });
    assert.equal(made.status, 201, made.text);
    const offerId = made.body.offer_id;
    await startedLater(`startOffer:${offerId}`, offerWorkflowId(offerId));
    const slots = await l2AppliesToday(stack.deps.db, otherMandate.id);
    assertErrorCode(await call(down.url, 'POST', `/v1/offers/${offerId}/accept`, { key: other.key }), 503, 'service_unavailable');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id, status: 'pending' }).resultSize(), 0);
    assert.equal(await l2AppliesToday(stack.deps.db, otherMandate.id), slots, 'the L2 slot is given back');
    const row = (await Offer.query(stack.deps.db).findById(offerId))!;
    assert.equal(row.status, 'pending');
    assert.equal(row.apply_id, null);

    const accepted = await call(stack.url, 'POST', `/v1/offers/${offerId}/accept`, { key: other.key });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.status, 'accepted');
  });

  it('a transfer offer releases the package; its unlock wait and claim mail start later', async () => {
    const pdf = (await driveSamples())[0].bytes;
    const uploaded = await call(stack.url, 'POST', '/v1/assets?filename=pack.pdf', {
      key: account.key,
      raw: pdf,
      headers: { 'content-type': 'application/pdf' },
    });
    const recipient = { email: `tess-${Date.now()}@example.test`, name: 'Tess' };
    const created = await call(stack.url, 'POST', '/v1/transfers', {
      key: account.key,
      body: { name: 'Offered while down', drive_file_ids: [uploaded.body.drive_file_id], recipients: [recipient] },
    });
    const path = `/v1/transfers/${created.body.transfer_id}/offer`;
    const offered = await call(down.url, 'POST', path, { key: account.key, body: { confirm: true } });
    assert.equal(offered.status, 200, offered.text);
    assert.equal(offered.body.status, 'released');
    const transfer = (await Transfer.query(stack.deps.db).findById(created.body.transfer_id))!;
    await startedLater(`startTransfer:${transfer.id}`, transferWorkflowId(transfer.id));
    await waitFor('the claim mail', () => latestMail(stack, recipient.email, 'transfer-offer'), 60_000);
  });
});
