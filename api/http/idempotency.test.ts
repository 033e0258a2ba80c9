import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { l2AppliesToday } from '../../activities/apply/cap';
import { Apply, Contact } from '../../db/models';
import { seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { isFinalAnswer } from './idempotency';

describe('Idempotency-Key on POST: a retry gets the first answer, the work is done once', () => {
  let stack: Stack;
  let account: Account;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '30000', SVC_IDEMPOTENCY_WAIT_MS: '1000', SVC_IDEMPOTENCY_STALE_MS: '5000' } });
    account = await createAccount(stack.deps.db);
  });
  after(() => stack.close());

  const post = (path: string, body: unknown, key: string, who = account) =>
    call(stack.url, 'POST', path, { key: who.key, body, headers: { 'idempotency-key': key } });

  it('answers a retry with the same key and body with the first answer (status and body), doing the work once', async () => {
    const body = { email: `ivy-${Date.now()}@example.test`, name: 'Ivy' };
    const first = await post('/v1/contacts', body, 'invite-ivy-1');
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await post('/v1/contacts', body, 'invite-ivy-1');
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(await Contact.query(stack.deps.db).where({ principal_id: account.principalId }).resultSize(), 1, 'one contact');
    // Without the key, the same body is a new request (here: a conflict, as there is one already).
    assertErrorCode(await call(stack.url, 'POST', '/v1/contacts', { key: account.key, body }), 409, 'conflict');
  });

  it('refuses the same key with another body (409 idempotency_mismatch); keys are per API key', async () => {
    await post('/v1/contacts', { email: `jo-${Date.now()}@example.test`, name: 'Jo' }, 'shared-key');
    assertErrorCode(await post('/v1/contacts', { email: 'other@example.test', name: 'Other' }, 'shared-key'), 409, 'idempotency_mismatch');
    const other = await createAccount(stack.deps.db);
    const theirs = await post('/v1/contacts', { email: 'other@example.test', name: 'Other' }, 'shared-key', other);
    assert.equal(theirs.status, 201, 'another key’s Idempotency-Key space is its own');
  });

  it('keeps a refusal retrying cannot change, and refuses a malformed key with 400', async () => {
    const missing = await post('/v1/documents/doc_missing00000000000000/send', { confirm: true }, 'send-missing');
    assertErrorCode(missing, 404, 'not_found');
    const again = await post('/v1/documents/doc_missing00000000000000/send', { confirm: true }, 'send-missing');
    assert.deepEqual(again.body, missing.body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    for (const bad of ['x'.repeat(256), 'naïve', 'with space']) {
      assertErrorCode(await post('/v1/contacts', { email: 'z@example.test', name: 'Z' }, bad), 400, 'invalid_request');
    }
  });

  it('lets a retry wait for a request still running, answers 409 idempotency_in_progress past the wait, and takes over a dead one', async () => {
    const body = { email: `kim-${Date.now()}@example.test`, name: 'Kim' };
    const raw = JSON.stringify(body);
    const { fingerprint } = await import('./idempotency');
    const print = fingerprint({ method: 'POST', path: '/v1/contacts', query: '', body: raw });
    const row = {
      api_key_id: account.keyId,
      key: 'running-one',
      fingerprint: print,
      status: 'running',
      expires_at: new Date(Date.now() + 3600_000),
    };
    await stack.deps.db('idempotency_keys').insert(row);
    const busy = await call(stack.url, 'POST', '/v1/contacts', {
      key: account.key,
      raw,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'running-one' },
    });
    assertErrorCode(busy, 409, 'idempotency_in_progress');
    assert.equal(busy.headers.get('retry-after'), '1');
    // A request that has been running past SVC_IDEMPOTENCY_STALE_MS died with its process: the retry runs it.
    await stack.deps
      .db('idempotency_keys')
      .where({ key: 'running-one' })
      .update({ created_at: new Date(Date.now() - 60_000) });
    const taken = await call(stack.url, 'POST', '/v1/contacts', {
      key: account.key,
      raw,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'running-one' },
    });
    assert.equal(taken.status, 201, taken.text);
  });

  it('forgets a key after 24 hours: the request then runs again', async () => {
    const body = { email: `lea-${Date.now()}@example.test`, name: 'Lea' };
    const first = await post('/v1/contacts', body, 'invite-lea');
    assert.equal(first.status, 201, first.text);
    await stack.deps
      .db('idempotency_keys')
      .where({ key: 'invite-lea' })
      .update({ expires_at: new Date(Date.now() - 1000) });
    // Run again, the invitation meets the one it made the first time.
    assertErrorCode(await post('/v1/contacts', body, 'invite-lea'), 409, 'conflict');
  });

  it('an L2 sign sent 5 times at once with one key applies once, counts once toward the cap, and answers the same body 5 times', async () => {
    const { account: signer, principal, mandate } = await mandatedAccount(stack, { level: 'L2', name: 'Ida Idempotent' });
    const { nda } = await seedSamples(stack, signer);
    const document = await sentNda(stack, signer, nda, principal, { name: 'Once NDA' });
    const path = `/v1/documents/${document.document_id}/sign`;
    // The retries wait for the first sign however long the apply takes here (this suite's 1 s wait is for the 409 case).
    const patient = await stack.withEnv({ SVC_IDEMPOTENCY_WAIT_MS: '60000' });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(patient.url, 'POST', path, { key: signer.key, body: { reason: 'agreed once' }, headers: { 'idempotency-key': 'sign-once' } }),
      ),
    ).finally(() => patient.close());
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    for (const reply of replies.slice(1)) assert.deepEqual(reply.body, replies[0].body);
    assert.equal(replies.filter((reply) => reply.headers.get('idempotent-replayed') === 'true').length, 4);
    assert.equal(await l2AppliesToday(stack.deps.db, mandate.id), 1, 'one slot of the day’s 25');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: document.document_id }).resultSize(), 1, 'one apply');
  });

  it('keeps only answers a retry cannot change: not 202, 429 or 5xx', () => {
    for (const status of [200, 201, 400, 403, 404, 409, 410, 422]) assert.equal(isFinalAnswer(status), true, String(status));
    for (const status of [202, 429, 500, 502, 503]) assert.equal(isFinalAnswer(status), false, String(status));
  });
});
