import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { l2AppliesToday } from '../../activities/mandates/cap';
import { Apply, Document, type Mandate, SignRequest, type Template } from '../../db/models';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { freePort } from '../../test/ports';
import { giveAppearance, grantMandate, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

describe('Temporal unreachable: every route that starts or signals a workflow answers 503, leaving nothing behind', () => {
  let stack: Stack;
  let down: { url: string; close(): Promise<void> };
  let account: Account;
  let mandate: Mandate;
  let nda: Template;

  before(async () => {
    stack = await startStack();
    // A second API on the same database whose Temporal address answers nothing.
    down = await stack.withEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, SVC_TEMPORAL_CALL_TIMEOUT_MS: '2000' });
    account = await createAccount(stack.deps.db, { name: 'Una Unreachable' });
    ({ nda } = await seedSamples(stack, account));
    await giveAppearance(stack, account);
    mandate = await grantMandate(stack, account, { level: 'L2' });
  });
  after(async () => {
    await down.close();
    await stack.close();
  });

  async function signers() {
    const principal = await principalOf(stack, account);
    return [
      { name: principal.name, email: principal.email },
      { name: 'Vic', email: `vic-${Date.now()}-${Math.random()}@example.test` },
    ];
  }
  const sentNda = async () =>
    (await createDocument(stack, account, { template_id: nda.id, name: 'Reachable NDA', signers: await signers(), send: true })).body;

  it('POST /documents with send: true either sends or leaves no draft behind', async () => {
    const name = `Unsent ${Date.now()}`;
    const reply = await call(down.url, 'POST', '/v1/documents', {
      key: account.key,
      body: { template_id: nda.id, name, signers: await signers(), send: true },
    });
    assertErrorCode(reply, 503, 'service_unavailable');
    assert.equal(await Document.query(stack.deps.db).where({ tenant_id: account.tenantId, name }).resultSize(), 0);
  });

  it('POST /documents/:id/send keeps the draft a draft', async () => {
    const draft = await createDocument(stack, account, { template_id: nda.id, name: 'Draft', signers: await signers() });
    assertErrorCode(
      await call(down.url, 'POST', `/v1/documents/${draft.body.document_id}/send`, { key: account.key, body: { confirm: true } }),
      503,
      'service_unavailable',
    );
    assert.equal((await Document.query(stack.deps.db).findById(draft.body.document_id))?.status, 'draft');
  });

  it('POST /documents/:id/sign leaves no pending apply and gives the L2 slot back', async () => {
    const document = await sentNda();
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

  it('POST /documents/:id/sign-requests leaves no open request', async () => {
    const l1 = await createAccount(stack.deps.db);
    await giveAppearance(stack, l1);
    await grantMandate(stack, l1, { level: 'L1' });
    const principal = await principalOf(stack, l1);
    const inbound = await createDocument(stack, account, {
      template_id: nda.id,
      name: 'For L1',
      send: true,
      signers: [
        { name: principal.name, email: principal.email },
        { name: 'W', email: `w-${Date.now()}@example.test` },
      ],
    });
    assertErrorCode(
      await call(down.url, 'POST', `/v1/documents/${inbound.body.document_id}/sign-requests`, {
        key: l1.key,
        body: { reason: 'while down' },
      }),
      503,
      'service_unavailable',
    );
    assert.equal(await SignRequest.query(stack.deps.db).where({ document_id: inbound.body.document_id }).resultSize(), 0);
  });

  it('the sign page’s submit leaves no pending apply', async () => {
    const document = await sentNda();
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
});
