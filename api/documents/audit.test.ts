// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sentNda as sentTo } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { nda, owner, sentNda, signature, stack, titleId, useSignFlowStack, waitForStatus } from '../../test/fixtures/sign-flow';
import { assertErrorCode, call } from '../../test/http';
import { principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

const audit = (id: string, key = owner.key, query = '') => call(stack.url, 'GET', `/v1/documents/${id}/audit${query}`, { key });

/** Every line of a document's trail, read page by page with `limit`. */
async function allLines(id: string, limit: number): Promise<any[]> {
  const lines: any[] = [];
  let cursor: string | null = null;
  do {
    const reply = await audit(id, owner.key, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(reply.status, 200, reply.text);
    assert.ok(reply.body.data.length <= limit);
    lines.push(...reply.body.data);
    cursor = reply.body.next_cursor;
  } while (cursor);
  return lines;
}

describe('GET /v1/documents/:id/audit', () => {
  useSignFlowStack();

  it('lists every step of a real signing, oldest first: created, sent, mailed, opened, code verified, signed, completed', async () => {
    const { id, first, second } = await sentNda({ name: 'Audited NDA' });
    await Promise.all([first.verify(), second.verify()]);
    const opened = await fetch(`${stack.url}${first.path}/document.pdf`, {
      headers: { cookie: first.cookie, 'user-agent': 'AuditTest/1.0 (signer browser)' },
    });
    assert.equal(opened.status, 200);
    await opened.arrayBuffer();
    assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
    const signed = await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'Counsel' } });
    assert.equal(signed.status, 200, signed.text);
    await waitForStatus(id, 'completed');
    // The invitations go out in their own workflow: each one mailed is on the trail once.
    const lines = await waitFor('both invitations on the trail', async () => {
      const reply = await audit(id, owner.key, '?limit=100');
      assert.equal(reply.status, 200, reply.text);
      const mailed = reply.body.data.filter((line: any) => line.action === 'mail.sent' && line.data.purpose === 'sign-invite');
      return mailed.length === 2 ? (reply.body.data as any[]) : undefined;
    });
    const actions = lines.map((line) => line.action);
    for (const action of [
      'document.created',
      'document.sent',
      'mail.sent',
      'document.viewed',
      'sign.email_verified',
      'document.signed',
      'document.completed',
    ])
      assert.ok(actions.includes(action), `the trail lacks ${action}: ${actions.join(', ')}`);
    assert.equal(actions.indexOf('document.created'), 0);
    assert.ok(actions.indexOf('document.sent') < actions.indexOf('document.signed'));
    assert.equal(actions.filter((action) => action === 'document.signed').length, 2);
    const times = lines.map((line) => Date.parse(line.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'oldest first',
    );

    const created = lines.find((line) => line.action === 'document.created');
    assert.deepEqual(created.actor, { kind: 'agent', id: owner.keyId, name: 'test agent' });
    assert.equal(created.principal_id, owner.principalId);
    assert.equal(created.mandate_id, null);
    assert.equal(created.data.name, 'Audited NDA');

    const viewed = lines.find((line) => line.action === 'document.viewed');
    assert.equal(viewed.actor.kind, 'signer');
    assert.equal(viewed.actor.name, 'Ann Able');
    assert.equal(viewed.user_agent, 'AuditTest/1.0 (signer browser)');
    assert.ok(viewed.ip, 'a browser action carries its address');

    const verified = lines.filter((line) => line.action === 'sign.email_verified');
    assert.deepEqual(verified.map((line) => line.actor.name).sort(), ['Ann Able', 'Bob Baker']);
    const signedLines = lines.filter((line) => line.action === 'document.signed');
    for (const line of signedLines) {
      assert.equal(line.actor.kind, 'signer');
      assert.equal(line.data.method, 'browser:drawn');
      assert.ok(line.ip);
    }
    assert.equal(lines.find((line) => line.action === 'document.completed').actor.kind, 'system');
  });

  it('records a decline with its reason', async () => {
    const { id, first } = await sentNda({ name: 'Declined NDA' });
    await first.verify();
    const declined = await first.request('POST', '/decline', { reason: 'Wrong counterparty' });
    assert.equal(declined.status, 200, declined.text);
    const reply = await audit(id);
    assert.equal(reply.status, 200, reply.text);
    const line = reply.body.data.find((entry: any) => entry.action === 'document.declined');
    assert.ok(line, reply.text);
    assert.equal(line.data.reason, 'Wrong counterparty');
    assert.equal(line.actor.name, 'Ann Able');
  });

  it('pages with the cursor: every line once, in order, whatever the page size; a foreign cursor is a 400', async () => {
    const { id, first, second } = await sentNda({ name: 'Paged NDA' });
    await Promise.all([first.verify(), second.verify()]);
    // Settled first: the invitations' mail lines arrive from their own workflows.
    await waitFor('the invitations on the trail', async () => {
      const reply = await audit(id, owner.key, '?limit=100');
      return reply.body.data.filter((line: any) => line.action === 'mail.sent').length === 2;
    });
    const whole = await allLines(id, 100);
    assert.ok(whole.length >= 6, `lines: ${whole.length}`);
    for (const size of [1, 2, 5]) {
      const paged = await allLines(id, size);
      assert.deepEqual(
        paged.map((line) => line.id),
        whole.map((line) => line.id),
        `pages of ${size}`,
      );
    }
    const firstPage = await audit(id, owner.key, '?limit=1');
    assert.ok(firstPage.body.next_cursor);
    assertErrorCode(await audit(id, owner.key, '?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_request');
    assertErrorCode(await audit(id, owner.key, '?limit=0'), 400, 'invalid_request');
    assertErrorCode(await audit(id, owner.key, '?limit=101'), 400, 'invalid_request');
  });

  it('is read as the document is: the owner and an inbound signer; another tenant and an unknown id get 404, no key 401', async () => {
    const signer = await createAccount(stack.deps.db, { name: 'Ines Inbound' });
    const document = await sentTo(stack, owner, nda, await principalOf(stack, signer), { name: 'Inbound audit' });
    const inbound = await audit(document.document_id, signer.key);
    assert.equal(inbound.status, 200, inbound.text);
    assert.equal(inbound.body.data[0].action, 'document.created');

    const stranger = await createAccount(stack.deps.db);
    assertErrorCode(await audit(document.document_id, stranger.key), 404, 'not_found');
    assertErrorCode(await audit('doc_doesnotexist', owner.key), 404, 'not_found');
    assertErrorCode(await call(stack.url, 'GET', `/v1/documents/${document.document_id}/audit`), 401, 'unauthorized');
  });
});
