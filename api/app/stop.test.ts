// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiKey, Apply, Event, MailMessage, Mandate, type Template } from '../../db/models';
import { latestMail, seedSamples, sentNda } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { startWorker } from '../../worker/worker';

/** The "Stop this agent" link of a mail, as a path on the test server, and its token. */
function stopLinkIn(text: string | undefined): { path: string; token: string } {
  const url = /Stop this agent: (\S+)/.exec(text ?? '')?.[1];
  assert.ok(url, `no stop link in:\n${text}`);
  const path = new URL(url).pathname;
  return { path, token: path.split('/').pop()! };
}

/** The stop page's form post, as the page's own button sends it (same origin). */
function pressStop(stack: Stack, path: string, what: 'mandate' | 'key', origin = new URL(stack.config.appUrl).origin): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ what, _csrf: '' }).toString(),
    redirect: 'manual',
  });
}

describe('"Stop this agent": the one-click stop in every mail that reports an agent’s action', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '60000' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  const l2Sign = (account: Account, documentId: string) =>
    call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: account.key, body: { reason: 'Countersign the NDA' } });

  it('the L2 notice’s link revokes the live L2 mandate with one POST from its page, signed out: the next L2 sign answers 403', async () => {
    const { account, principal, mandate } = await mandatedAccount(stack, { name: 'Stella Stopper', label: 'runaway agent' });
    const first = await sentNda(stack, owner, nda, principal, { name: 'First NDA' });
    assert.equal((await l2Sign(account, first.document_id)).status, 200);
    const notice = await waitFor('the L2 notice', () => latestMail(stack, principal.email, 'l2-notice'));
    const { path, token } = stopLinkIn(notice.text);
    assert.ok(path.startsWith(`${new URL(stack.config.appUrl).pathname}/stop/${mandate.id}.`), path);

    // Opening the link (as a mail scanner does) shows the page and stops nothing.
    const page = await fetch(`${stack.url}${path}`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    const html = await page.text();
    assert.match(html, /runaway agent/);
    assert.match(html, /data-testid="stop-mandate"/);
    assert.match(html, /data-testid="stop-key"/);
    assert.equal((await Mandate.query(stack.deps.db).findById(mandate.id))!.status, 'active', 'a GET stops nothing');

    // A post from another site is refused and stops nothing.
    const foreign = await pressStop(stack, path, 'mandate', 'https://evil.example');
    assert.equal(foreign.status, 400);
    assert.equal((await Mandate.query(stack.deps.db).findById(mandate.id))!.status, 'active');

    const stopped = await pressStop(stack, path, 'mandate');
    assert.equal(stopped.status, 302);
    assert.equal(stopped.headers.get('location'), `${path}?done=mandate`);
    const revoked = (await Mandate.query(stack.deps.db).findById(mandate.id))!;
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.revoked_via, 'stop-link');
    const after = await (await fetch(`${stack.url}${path}?done=mandate`)).text();
    assert.match(after, /Stopped: the mandate is revoked/);
    assert.doesNotMatch(after, /data-testid="stop-mandate"/, 'nothing left to revoke of the mandate');

    const second = await sentNda(stack, owner, nda, principal, { name: 'Second NDA' });
    assertErrorCode(await l2Sign(account, second.document_id), 403, 'mandate_inactive');
    const key = (await ApiKey.query(stack.deps.db).findById(account.keyId))!;
    assert.ok(!key.scopes.includes('documents:sign'), 'the key’s last mandate took documents:sign with it');
    assert.equal(key.revoked_at, null, 'the key itself still works: only the mandate was chosen');

    // The tenant's webhooks hear it; the app's mandates page says how it ended.
    const event = await Event.query(stack.deps.db)
      .where({ tenant_id: account.tenantId, event: 'mandate.revoked' })
      .whereRaw(`data->>'mandate_id' = ?`, [mandate.id])
      .first();
    assert.equal(event?.data.via, 'stop-link');
    assert.equal(event?.data.api_key_id, account.keyId);
    const app = await new AppClient(stack, principal.email).login();
    const mandates = await (await app.get(`${app.appPath}/mandates`)).text();
    assert.match(mandates, /data-testid="revoked-via">by the “Stop this agent” link of an e-mail/);

    // The outbox never kept the link's token in the clear.
    for (const mail of await MailMessage.query(stack.deps.db).where({ to_address: principal.email }))
      assert.ok(!mail.text.includes(token), `no stop token stored in ${mail.purpose}`);
  });

  it('the key choice revokes the key and every mandate it holds; the keys page says so', async () => {
    const { account, principal, mandate } = await mandatedAccount(stack, { name: 'Kay Keystop', label: 'leaky key', level: 'L1' });
    const document = await sentNda(stack, owner, nda, principal, { name: 'L1 NDA' });
    const asked = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign-requests`, {
      key: account.key,
      body: { reason: 'Please countersign' },
    });
    assert.equal(asked.status, 201, asked.text);
    const request = await waitFor('the L1 request mail', () => latestMail(stack, principal.email, 'sign-request'));
    const { path } = stopLinkIn(request.text);

    const stopped = await pressStop(stack, path, 'key');
    assert.equal(stopped.status, 302);
    assert.match(await (await fetch(`${stack.url}${stopped.headers.get('location')}`)).text(), /Stopped: the API key is revoked/);
    const key = (await ApiKey.query(stack.deps.db).findById(account.keyId))!;
    assert.ok(key.revoked_at);
    assert.equal(key.revoked_via, 'stop-link');
    const held = await Mandate.query(stack.deps.db).where({ api_key_id: account.keyId });
    assert.deepEqual(
      held.map((row) => [row.id, row.status, row.revoked_via]),
      [[mandate.id, 'revoked', 'key']],
    );
    assertErrorCode(await call(stack.url, 'GET', '/v1/me', { key: account.key }), 401, 'unauthorized');

    const app = await new AppClient(stack, principal.email).login();
    const keys = await (await app.get(`${app.appPath}/keys`)).text();
    assert.match(keys, /data-testid="revoked-via">by the “Stop this agent” link of an e-mail/);
    const page = await (await fetch(`${stack.url}${path}`)).text();
    assert.match(page, /data-testid="stop-done"/, 'nothing is left to stop');
  });

  it('the mandate-grant mail carries the link too; a forged link is 404 and an expired mandate’s link 410, stopping nothing', async () => {
    const { account, principal, mandate } = await mandatedAccount(stack, { name: 'Gail Grant' });
    const grant = await latestMail(stack, principal.email, 'mandate-code');
    const { path } = stopLinkIn(grant?.text);
    assert.ok(path.includes(`/stop/${mandate.id}.`));

    const forged = `${path.slice(0, -2)}xx`;
    assert.equal((await fetch(`${stack.url}${forged}`)).status, 404);
    assert.equal((await pressStop(stack, forged, 'key')).status, 404);

    await Mandate.query(stack.deps.db)
      .findById(mandate.id)
      .patch({ expires_at: new Date(Date.now() - 1000) });
    const expired = await fetch(`${stack.url}${path}`);
    assert.equal(expired.status, 410);
    assert.match(await expired.text(), /data-testid="stop-expired"/);
    assert.equal((await pressStop(stack, path, 'key')).status, 410);
    assert.equal((await ApiKey.query(stack.deps.db).findById(account.keyId))!.revoked_at, null);
  });
});

describe('revoking a key revokes its mandates, so a queued apply of that key is refused', () => {
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    // No worker: an L2 apply is recorded and waits in its workflow until a worker starts.
    stack = await startStack({ worker: false, env: { SVC_APPLY_WAIT_MS: '300' } });
    owner = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    ({ nda } = await seedSamples(stack, owner));
  });
  after(() => stack.close());

  it('a key revoked in the app leaves no active mandate and no documents:sign, and its queued apply commits nothing', async () => {
    const { account, principal, mandate } = await mandatedAccount(stack, { name: 'Quinn Queued' });
    const document = await sentNda(stack, owner, nda, principal, { name: 'Queued NDA' });
    const queued = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
      key: account.key,
      body: { reason: 'Now' },
    });
    assert.equal(queued.status, 202, queued.text);
    assert.equal(queued.body.status, 'processing');

    const app = await new AppClient(stack, principal.email).login();
    const revokePage = `${app.appPath}/keys/${account.keyId}/revoke`;
    const revoked = await app.post(revokePage, {}, revokePage);
    assert.equal(revoked.status, 302);
    const key = (await ApiKey.query(stack.deps.db).findById(account.keyId))!;
    assert.ok(key.revoked_at);
    assert.ok(!key.scopes.includes('documents:sign'));
    assert.deepEqual(
      (await Mandate.query(stack.deps.db).where({ api_key_id: account.keyId })).map((row) => [row.id, row.status]),
      [[mandate.id, 'revoked']],
    );

    const worker = await startWorker(stack.deps);
    try {
      const apply = await waitFor(
        'the queued apply to be refused',
        async () => {
          const row = await Apply.query(stack.deps.db).where({ document_id: document.document_id }).first();
          return row?.status === 'rejected' ? row : undefined;
        },
        60_000,
      );
      assert.equal(apply.error_code, 'mandate_inactive');
      const seen = await call(stack.url, 'GET', `/v1/documents/${document.document_id}`, { key: owner.key });
      assert.equal(seen.body.signers[0].status, 'pending', 'nothing was signed');
    } finally {
      await worker.stop();
    }
  });
});
