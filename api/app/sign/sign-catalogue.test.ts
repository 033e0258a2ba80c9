import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expireDocument } from '../../../activities/documents/expiry';
import { Document, Tenant } from '../../../db/models';
import { outsideCatalogue, PSEUDO_HEADERS, pageOutsideCatalogue } from '../../../test/catalogue';
import type { SignerSession } from '../../../test/documents';
import { owner, sentNda, signature, stack, useSignFlowStack, waitForStatus } from '../../../test/fixtures/sign-flow';
import { call } from '../../../test/http';

/**
 * The sign link's pages (issue 38, item 2) in the pseudo-locale: every text a signer reads comes from
 * the catalogue, in each state the server renders differently, and so do the messages of the link's
 * JSON answers that the page shows (refusals of a code, of a signature without consent).
 */
describe('the sign link in the pseudo-locale', () => {
  useSignFlowStack();

  const NAME = 'Quarterly NDA';
  const VOID_REASON = 'Wrong counterparty named';

  async function data(): Promise<string[]> {
    const tenant = await Tenant.query(stack.deps.db).findById(owner.tenantId);
    return [NAME, VOID_REASON, 'Olivia Owner', 'Ann Able', 'Bob Baker', tenant?.name ?? ''];
  }

  /** The page at the signer's link as a browser in the pseudo-locale gets it (with the signer's cookie when they confirmed the code). */
  async function page(signer: SignerSession, status = 200): Promise<string[]> {
    const headers = { ...PSEUDO_HEADERS, ...(signer.cookie ? { cookie: signer.cookie } : {}) };
    const reply = await call(stack.url, 'GET', signer.path, { headers });
    assert.equal(reply.status, status, reply.text);
    assert.match(reply.text, /⟦/, 'the page is in the pseudo-locale');
    return pageOutsideCatalogue(reply.text, await data());
  }

  it('a fresh link, before and after the code', async () => {
    const { first } = await sentNda({ name: NAME });
    assert.deepEqual(await page(first), []);
    await first.verify();
    assert.deepEqual(await page(first), []);
  });

  it('a link that opens nothing', async () => {
    const reply = await call(stack.url, 'GET', '/app/sign/not-a-real-token', { headers: PSEUDO_HEADERS });
    assert.equal(reply.status, 404);
    assert.deepEqual(pageOutsideCatalogue(reply.text, await data()), []);
  });

  it('already signed, and declined documents', async () => {
    const signed = await sentNda({ name: NAME });
    await signed.first.verify();
    assert.equal((await signed.first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
    assert.deepEqual(await page(signed.first), [], 'already signed, the other signer not yet');

    const declined = await sentNda({ name: NAME });
    await declined.first.verify();
    assert.equal((await declined.first.request('POST', '/decline', { reason: 'No' })).status, 200);
    assert.deepEqual(await page(declined.first), [], 'declined by this signer');
    assert.deepEqual(await page(declined.second), [], 'declined by the other signer');
  });

  it('a completed document', async () => {
    const { id, first, second } = await sentNda({ name: NAME });
    const titled = { consent: true, signature, values: {} };
    await first.verify();
    assert.equal((await first.request('POST', '/sign', titled)).status, 200);
    await second.verify();
    const title = Object.fromEntries([
      [(await second.request('GET', '/state')).body.widgets.find((w: { unfilled: boolean }) => w.unfilled).id, 'Counsel'],
    ]);
    assert.equal((await second.request('POST', '/sign', { ...titled, values: title })).status, 200);
    await waitForStatus(id, 'completed');
    assert.deepEqual(await page(second), []);
  });

  it('voided and expired documents say why, and refuse a code in words from the catalogue', async () => {
    const voided = await sentNda({ name: NAME });
    const reply = await call(stack.url, 'POST', `/v1/documents/${voided.id}/void`, { key: owner.key, body: { reason: VOID_REASON } });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(await page(voided.first, 410), []);
    const refused = await call(stack.url, 'POST', `${voided.first.path}/code`, { headers: PSEUDO_HEADERS });
    assert.equal(refused.status, 410, refused.text);
    assert.deepEqual(outsideCatalogue(refused.body.error.message, await data()), []);

    const expired = await sentNda({ name: NAME });
    await Document.query(stack.deps.db)
      .findById(expired.id)
      .patch({ expires_at: new Date(Date.now() - 60_000) });
    assert.equal((await expireDocument(stack.deps, expired.id)).status, 'expired');
    assert.deepEqual(await page(expired.first, 410), []);
  });

  it('a signer who waits for another in strict order reads why in words from the catalogue', async () => {
    const { second } = await sentNda({ name: NAME, strict: true });
    await second.verify();
    const state = await call(stack.url, 'GET', `${second.path}/state`, { headers: { ...PSEUDO_HEADERS, cookie: second.cookie } });
    assert.equal(state.status, 200, state.text);
    assert.equal(state.body.can_sign, false);
    assert.match(state.body.blocked_reason, /Ann Able/);
    assert.deepEqual(outsideCatalogue(state.body.blocked_reason, await data()), []);
  });

  it('the refusals the page shows: no code confirmed yet, no consent', async () => {
    const { first } = await sentNda({ name: NAME });
    const unconfirmed = await call(stack.url, 'GET', `${first.path}/state`, { headers: PSEUDO_HEADERS });
    assert.equal(unconfirmed.status, 401, unconfirmed.text);
    assert.deepEqual(outsideCatalogue(unconfirmed.body.error.message, await data()), []);
    await first.verify();
    const reply = await call(stack.url, 'POST', `${first.path}/sign`, {
      headers: { ...PSEUDO_HEADERS, cookie: first.cookie },
      body: { consent: false, signature, values: {} },
    });
    assert.equal(reply.status, 400, reply.text);
    // "Invalid request: …" around it is the API's wording (api/http); the consent rule's own message is the sign page's.
    const consent = (reply.body.error.details ?? []).find((detail: { path: string }) => detail.path === 'consent');
    assert.ok(consent, reply.text);
    assert.match(consent.message, /⟦/);
    assert.deepEqual(outsideCatalogue(consent.message, []), []);
  });
});
