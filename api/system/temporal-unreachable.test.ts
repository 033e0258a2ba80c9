import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { l2AppliesToday } from '../../activities/apply/cap';
import {
  Apply,
  Contact,
  Document,
  MailMessage,
  type Mandate,
  Offer,
  type Principal,
  SignRequest,
  type Template,
  Transfer,
} from '../../db/models';
import { connect } from '../../test/contacts';
import { type SentNdaOptions, SignerSession, seedSamples, sentNda } from '../../test/documents';
import type { Account } from '../../test/factories';
import { driveSamples } from '../../test/files';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { freePort } from '../../test/ports';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

describe('Temporal unreachable: every route that starts or signals a workflow answers 503, leaving nothing behind', () => {
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

  /** The account's own NDA: its principal signs first, a fresh counterparty second. */
  const ownNda = (options: SentNdaOptions = {}) =>
    sentNda(stack, account, nda, principal, { name: 'Reachable NDA', other: { name: 'Vic' }, ...options });

  it('POST /documents with send: true either sends or leaves no draft behind', async () => {
    const name = `Unsent ${Date.now()}`;
    const reply = await call(down.url, 'POST', '/v1/documents', {
      key: account.key,
      body: {
        template_id: nda.id,
        name,
        signers: [
          { name: principal.name, email: principal.email },
          { name: 'Vic', email: `vic-${Date.now()}-${Math.random()}@example.test` },
        ],
        send: true,
      },
    });
    assertErrorCode(reply, 503, 'service_unavailable');
    assert.equal(await Document.query(stack.deps.db).where({ tenant_id: account.tenantId, name }).resultSize(), 0);
  });

  it('POST /documents/:id/send keeps the draft a draft', async () => {
    const draft = await ownNda({ name: 'Draft', send: false });
    assertErrorCode(
      await call(down.url, 'POST', `/v1/documents/${draft.document_id}/send`, { key: account.key, body: { confirm: true } }),
      503,
      'service_unavailable',
    );
    assert.equal((await Document.query(stack.deps.db).findById(draft.document_id))?.status, 'draft');
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

  it('POST /documents/:id/sign-requests leaves no open request', async () => {
    const { account: l1, principal: signer } = await mandatedAccount(stack, { level: 'L1' });
    const inbound = await sentNda(stack, account, nda, signer, { name: 'For L1', other: { name: 'W' } });
    assertErrorCode(
      await call(down.url, 'POST', `/v1/documents/${inbound.document_id}/sign-requests`, {
        key: l1.key,
        body: { reason: 'while down' },
      }),
      503,
      'service_unavailable',
    );
    assert.equal(await SignRequest.query(stack.deps.db).where({ document_id: inbound.document_id }).resultSize(), 0);
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

  it('contacts and offers: an invitation, an offer, an L2 accept and an escalation leave nothing behind', async () => {
    const {
      account: other,
      principal: otherPrincipal,
      mandate: otherMandate,
    } = await mandatedAccount(stack, {
      level: 'L2',
      name: 'Ola Offeree',
    });
    const invite = { email: other.email, name: 'Ola' };
    assertErrorCode(await call(down.url, 'POST', '/v1/contacts', { key: account.key, body: invite }), 503, 'service_unavailable');
    assert.equal(await Contact.query(stack.deps.db).where({ principal_id: account.principalId }).resultSize(), 0, 'no contact left');
    assert.equal(
      await MailMessage.query(stack.deps.db).where({ to_address: other.email, purpose: 'contact-invite' }).resultSize(),
      0,
      'no invitation mail left',
    );

    const { fromContact } = await connect(stack, account, other);
    const document = await sentNda(stack, account, nda, otherPrincipal, { name: 'Offered while down', other: { name: 'Wes' } });
    const path = `/v1/documents/${document.document_id}/offers`;
    const body = { contact_id: fromContact, terms: 'As drafted' };
    assertErrorCode(await call(down.url, 'POST', path, { key: account.key, body }), 503, 'service_unavailable');
    assert.equal(await Offer.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 0, 'no offer left');

    const made = await call(stack.url, 'POST', path, { key: account.key, body });
    assert.equal(made.status, 201, made.text);
    const offerId = made.body.offer_id;
    const slots = await l2AppliesToday(stack.deps.db, otherMandate.id);
    assertErrorCode(await call(down.url, 'POST', `/v1/offers/${offerId}/accept`, { key: other.key }), 503, 'service_unavailable');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id, status: 'pending' }).resultSize(), 0);
    assert.equal(await l2AppliesToday(stack.deps.db, otherMandate.id), slots, 'the L2 slot is given back');
    assertErrorCode(await call(down.url, 'POST', `/v1/offers/${offerId}/escalate`, { key: other.key }), 503, 'service_unavailable');
    assert.equal(
      await SignRequest.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(),
      0,
      'no sign request left',
    );
    const row = (await Offer.query(stack.deps.db).findById(offerId))!;
    assert.equal(row.status, 'pending');
    assert.equal(row.apply_id, null);

    const accepted = await call(stack.url, 'POST', `/v1/offers/${offerId}/accept`, { key: other.key });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.status, 'accepted');
  });

  it('a transfer offer leaves the package created, with no claim token and no mail', async () => {
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
    assertErrorCode(await call(down.url, 'POST', path, { key: account.key, body: { confirm: true } }), 503, 'service_unavailable');
    const transfer = (await Transfer.query(stack.deps.db).findById(created.body.transfer_id))!;
    assert.equal(transfer.status, 'created');
    const rows = await stack.deps.db('transfer_recipients').where({ transfer_id: transfer.id });
    assert.ok(
      rows.every((row) => row.token_hash === null),
      'no claim token was kept',
    );
    assert.equal(await MailMessage.query(stack.deps.db).where({ to_address: recipient.email }).resultSize(), 0, 'no claim mail');
    const offered = await call(stack.url, 'POST', path, { key: account.key, body: { confirm: true } });
    assert.equal(offered.status, 200, offered.text);
    assert.equal(offered.body.status, 'released');
  });
});
