// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transfer } from '../../db/models';
import { createAccount } from '../../test/factories';
import { create, offered, publicDownloads, publicGet, sender, stack, upload, useTransfersStack } from '../../test/fixtures/transfers';
import { assertErrorCode, call } from '../../test/http';
import { AppClient, mandatedAccount } from '../../test/principal';

describe('transfers: share, sign-to-unlock and accept-to-unlock packages, claims and downloads', () => {
  useTransfersStack();

  it('binds a claim to the signed-in app session of the recipient; another session gets 404, none 401', async () => {
    const { account: bea } = await mandatedAccount(stack, { level: null, name: 'Bea Bound' });
    const body = await offered({
      name: 'Bind me',
      drive_file_ids: [await upload(sender, 3)],
      recipients: [{ email: bea.email, name: 'Bea' }],
    });
    const token = body.recipients[0].token;
    assertErrorCode(await call(stack.url, 'POST', `/v1/public/transfers/${token}/bind`), 401, 'unauthorized');
    const other = await new AppClient(stack, sender.email).login();
    const refused = await fetch(`${stack.url}/v1/public/transfers/${token}/bind`, { method: 'POST', headers: { cookie: other.cookie } });
    assert.equal(refused.status, 404);
    const app = await new AppClient(stack, bea.email).login();
    // Another site's page (or a sibling subdomain's, which SameSite=Lax lets carry the cookie) cannot bind it.
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of foreign) {
      const forged = await fetch(`${stack.url}/v1/public/transfers/${token}/bind`, {
        method: 'POST',
        headers: { cookie: app.cookie, ...headers },
      });
      assert.equal(forged.status, 403, JSON.stringify(headers));
      assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'cross_origin');
    }
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: bea.key }), 404, 'not_found');
    const bound = await fetch(`${stack.url}/v1/public/transfers/${token}/bind`, { method: 'POST', headers: { cookie: app.cookie } });
    assert.equal(bound.status, 200);
    assert.equal(((await bound.json()) as { bound: boolean }).bound, true);
    assert.equal((await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/downloads`, { key: bea.key })).status, 200);
  });

  it('cancel revokes every claim link (404 like a token that never was); refusals are clear and leak nothing', async () => {
    const recipient = { email: `carl-${Date.now()}@example.test`, name: 'Carl' };
    const body = await offered({
      name: 'Cancel me',
      drive_file_ids: [await upload(sender, 1)],
      recipients: [recipient],
      requires_acceptance: true,
    });
    const token = body.recipients[0].token;
    const cancelled = await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/cancel`, { key: sender.key });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    const never = `svcxfer_${'A'.repeat(32)}`;
    for (const candidate of [token, never, 'svcxfer_short', 'nonsense']) {
      const reply = await publicGet(candidate);
      assertErrorCode(reply, 404, 'not_found');
      assert.equal(reply.body.error.message, (await publicGet(never)).body.error.message, 'the same answer for every bad token');
      assertErrorCode(await call(stack.url, 'POST', `/v1/public/transfers/${candidate}/accept`), 404, 'not_found');
      assertErrorCode(await publicDownloads(candidate), 404, 'not_found');
      assertErrorCode(
        await call(stack.url, 'POST', '/v1/transfers/claim', { key: sender.key, body: { token: candidate } }),
        404,
        'not_found',
      );
    }
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${body.transfer_id}/cancel`, { key: sender.key }), 409, 'invalid_state');
    assert.equal((await Transfer.query(stack.deps.db).findById(body.transfer_id))?.released_at, null);
    const share = await offered({ name: 'Released', drive_file_ids: [await upload(sender, 1)], recipients: [recipient] });
    assertErrorCode(await call(stack.url, 'POST', `/v1/transfers/${share.transfer_id}/cancel`, { key: sender.key }), 409, 'invalid_state');
  });

  it('refuses bad input (400 naming the field), other tenants’ ids (404), a file in use (409)', async () => {
    const file = await upload(sender, 0);
    const recipients = [{ email: 'r@example.test', name: 'R' }];
    const both = await create({ name: 'x', drive_file_ids: [file], recipients, document_id: 'doc_x', requires_acceptance: true });
    assertErrorCode(both, 400, 'invalid_request');
    assert.equal(both.body.error.details[0].path, 'requires_acceptance');
    assertErrorCode(await create({ name: 'x', drive_file_ids: [], recipients }), 400, 'invalid_request');
    assertErrorCode(await create({ name: 'x', drive_file_ids: [file, file], recipients }), 400, 'invalid_request');
    assertErrorCode(
      await create({ name: 'x', drive_file_ids: [file], recipients: [...recipients, ...recipients] }),
      400,
      'invalid_request',
    );
    const stranger = await createAccount(stack.deps.db);
    assertErrorCode(await create({ name: 'x', drive_file_ids: [file], recipients }, stranger), 404, 'not_found');
    assertErrorCode(await create({ name: 'x', drive_file_ids: [file], recipients, document_id: 'doc_nothere' }), 404, 'not_found');
    const made = await create({ name: 'Mine', drive_file_ids: [file], recipients });
    for (const [method, path, body] of [
      ['GET', `/v1/transfers/${made.body.transfer_id}`, undefined],
      ['POST', `/v1/transfers/${made.body.transfer_id}/offer`, { confirm: true }],
      ['POST', `/v1/transfers/${made.body.transfer_id}/cancel`, undefined],
      ['POST', `/v1/transfers/${made.body.transfer_id}/downloads`, undefined],
    ] as const)
      assertErrorCode(await call(stack.url, method, path, { key: stranger.key, body }), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'DELETE', `/v1/drive/${file}`, { key: sender.key }), 409, 'invalid_state');
    assertErrorCode(await call(stack.url, 'GET', '/v1/transfers'), 401, 'unauthorized');
  });
});
