// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Apply, SignRequest } from '../../db/models';
import { createDocument, latestMail } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { inboundNda, linkPath, nda, owner, principalWithL1, requestSign, stack, useL1Stack } from '../../test/fixtures/signing-l1';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

describe('L1: sign requests the principal confirms in the app', () => {
  useL1Stack();

  it('creates a request with its confirm_url, e-mails it to the principal, and allows one open request per document and key', async () => {
    const { account, mandate } = await principalWithL1();
    const document = await inboundNda(account);
    const created = await requestSign(account, document.document_id);
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.sign_request_id, /^sr_/);
    assert.equal(created.body.status, 'open');
    assert.equal(created.body.mandate_id, mandate.id);
    assert.match(created.body.confirm_url, new RegExp(`^${stack.config.appUrl}/sign-request/sr_[0-9A-Za-z]{20}\\.[A-Za-z0-9_-]+$`));
    const principal = await principalOf(stack, account);
    const mail = await waitFor('the confirm mail', () => latestMail(stack, principal.email, 'sign-request'));
    assert.ok(mail.text.includes(created.body.confirm_url));

    assertErrorCode(await requestSign(account, document.document_id), 409, 'pending_exists');
    const listed = await call(stack.url, 'GET', `/v1/documents/${document.document_id}/sign-requests`, { key: account.key });
    assert.deepEqual(
      listed.body.data.map((r: { sign_request_id: string }) => r.sign_request_id),
      [created.body.sign_request_id],
    );
    const one = await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: account.key });
    assert.equal(one.body.reason, 'Please confirm the NDA we agreed');
    assertErrorCode(
      await call(stack.url, 'GET', `/v1/sign-requests/${created.body.sign_request_id}`, { key: owner.key }),
      404,
      'not_found',
    );
  });

  it('works with an L2 mandate too (an agent may always ask for confirmation)', async () => {
    const { account } = await principalWithL1('L2');
    assert.equal((await requestSign(account, (await inboundNda(account)).document_id)).status, 201);
  });

  it('refuses without a mandate, for a non-signer and with l1_signing off', async () => {
    const bare = await createAccount(stack.deps.db);
    assertErrorCode(await requestSign(bare, (await inboundNda(bare)).document_id), 403, 'mandate_required');
    const { account } = await principalWithL1();
    const notMine = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'x',
      signers: [
        { name: 'A', email: 'a9@example.test' },
        { name: 'B', email: 'b9@example.test' },
      ],
      send: true,
    });
    assertErrorCode(await requestSign(account, notMine.body.document_id), 404, 'not_found');
    const api = await stack.withEnv({ SVC_FF_L1_SIGNING: 'false' });
    try {
      assertErrorCode(await requestSign(account, (await inboundNda(account)).document_id, api.url), 403, 'feature_disabled');
    } finally {
      await api.close();
    }
  });

  it('cannot be confirmed with the link alone: the agent gets the sign-in page, and another principal a 404', async () => {
    const { account } = await principalWithL1();
    const created = await requestSign(account, (await inboundNda(account)).document_id);
    const link = linkPath(created.body.confirm_url);

    const anonymous = await fetch(`${stack.url}${link}`, { redirect: 'manual' });
    assert.equal(anonymous.status, 302);
    assert.match(anonymous.headers.get('location') ?? '', /\/app\/login\?next=/);
    const post = await fetch(`${stack.url}${link}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    assert.equal(post.status, 302, 'a key is no session: the confirm is refused');

    const stranger = await createAccount(stack.deps.db);
    const strangerApp = await new AppClient(stack, stranger.email).login();
    const foreign = await strangerApp.get(link);
    assert.equal(foreign.status, 404);
    const attempt = await strangerApp.post(`${link}/confirm`, {}, `${new URL(stack.config.appUrl).pathname}/`);
    assert.equal(attempt.status, 404);

    const request = await SignRequest.query(stack.deps.db).findById(created.body.sign_request_id);
    assert.equal(request?.status, 'open');
    assert.equal(await Apply.query(stack.deps.db).where({ document_id: request!.document_id }).resultSize(), 0);
  });

  it('e-mails the confirm link even when the request’s transaction commits after its workflow starts', async () => {
    const { account } = await principalWithL1();
    const document = await inboundNda(account);
    const { db } = stack.deps;
    // A deferred trigger holds every sign request insert's commit back by two seconds.
    await db.raw(`create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(2); return null; end $$`);
    await db.raw(
      `create constraint trigger slow_commit after insert on sign_requests deferrable initially deferred for each row execute function slow_commit()`,
    );
    try {
      const created = await requestSign(account, document.document_id);
      assert.equal(created.status, 201, created.text);
      const principal = await principalOf(stack, account);
      const mail = await waitFor('the confirm mail', () => latestMail(stack, principal.email, 'sign-request'), 20_000);
      assert.ok(mail.text.includes(created.body.confirm_url));
    } finally {
      await db.raw('drop trigger slow_commit on sign_requests');
      await db.raw('drop function slow_commit()');
    }
  });
});
