// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Apply, type Template } from '../../db/models';
import { seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { mandatedAccount, principalOf } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

describe('L2 sign retried with its Idempotency-Key after 202 processing', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    // The apply pauses 2.5 s in its activity and the request waits 0.3 s: the first answer is 202.
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '300', SVC_FAULT_APPLY_PAUSE_MS: '2500' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  it('answers that apply’s outcome (202 while it runs, then 200 applied, even with no worker left) instead of signing again or 409 already_signed', async () => {
    const { account } = await mandatedAccount(stack, { name: 'Rhea Retry', label: 'retrying agent' });
    const document = await sentNda(stack, owner, nda, await principalOf(stack, account));
    const sign = (key?: string) =>
      call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
        key: account.key,
        body: { reason: 'Countersign' },
        headers: key ? { 'idempotency-key': key } : {},
      });

    const first = await sign('retry-after-202');
    assert.equal(first.status, 202, first.text);
    assert.equal(first.body.status, 'processing');
    const meanwhile = await sign('retry-after-202');
    assert.equal(meanwhile.status, 202, meanwhile.text);
    assert.equal(meanwhile.headers.get('idempotent-replayed'), 'true');

    await waitFor(
      'the apply',
      async () => (await Apply.query(stack.deps.db).where({ document_id: document.document_id }).first())?.status === 'applied',
      20_000,
    );
    // The worker is gone (killed, say): the workflow cannot answer the update, and the retry must not
    // wait on it for an apply the database already records as made.
    await stack.worker!.stop();
    const done = await sign('retry-after-202');
    assert.equal(done.status, 200, done.text);
    assert.equal(done.headers.get('idempotent-replayed'), 'true');
    assert.equal(done.body.status, 'applied');
    assert.match(done.body.document_hash, /^[0-9a-f]{64}$/);
    const again = await sign('retry-after-202');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, done.body, 'the final answer is kept');

    assertErrorCode(await sign(), 409, 'already_signed');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 1, 'one apply');
  });
});
