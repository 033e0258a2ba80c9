import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignRequest } from '../../db/models';
import { newId } from '../../lib/ids';
import { seedSamples, sentNda } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { assertPaging } from '../../test/paging';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';

describe('GET /v1/documents/:id/sign-requests, paged', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ worker: false });
  });
  after(() => stack.close());

  it('pages the key’s requests with limit and cursor, newest first; a bad cursor or limit is 400; no key 401, another tenant 404', async () => {
    const owner = await createAccount(stack.deps.db, { name: 'Olive Owner' });
    const { nda } = await seedSamples(stack, owner);
    const { account, principal, mandate } = await mandatedAccount(stack, { level: 'L1', name: 'Lia Lister' });
    const document = await sentNda(stack, owner, nda, principal, { name: 'Listed NDA', other: { name: 'Other' } });
    const path = `/v1/documents/${document.document_id}/sign-requests`;
    const open = await call(stack.url, 'POST', path, { key: account.key, body: { reason: 'Please confirm' } });
    assert.equal(open.status, 201, open.text);
    // Earlier requests of the same key on the document, since expired: the history the list shows too.
    const first = (await SignRequest.query(stack.deps.db).findById(open.body.sign_request_id))!;
    for (let n = 1; n <= 3; n += 1) {
      await SignRequest.query(stack.deps.db).insert({
        id: newId('sr'),
        tenant_id: first.tenant_id,
        document_id: first.document_id,
        signer_id: first.signer_id,
        principal_id: first.principal_id,
        api_key_id: first.api_key_id,
        mandate_id: mandate.id,
        reason: `earlier ${n}`,
        status: 'expired',
        expires_at: new Date(Date.now() - n * 60_000),
        created_at: new Date(Date.now() - n * 24 * 3600_000),
      });
    }
    await assertPaging(stack.url, path, account.key, 'sign_request_id', 4);
    const listed = await call(stack.url, 'GET', `${path}?limit=1`, { key: account.key });
    assert.equal(listed.body.data[0].sign_request_id, open.body.sign_request_id, 'newest first');
    assert.equal((await call(stack.url, 'GET', path)).status, 401);
    assertErrorCode(await call(stack.url, 'GET', path, { key: (await createAccount(stack.deps.db)).key }), 404, 'not_found');
  });
});
