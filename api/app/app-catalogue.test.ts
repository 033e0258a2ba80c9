import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONSENT_TEXT, CONSENT_VERSION } from '../../activities/mandates/mandates';
import { ApiKey, AuditEvent } from '../../db/models';
import { pageOutsideCatalogue } from '../../test/catalogue';
import { createDocument, latestMail, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { account, path, stack, useAppStack } from '../../test/fixtures/app';
import { local, pseudo } from '../../test/fixtures/app-pseudo';
import { call } from '../../test/http';
import { challengeIn, grantMandate, hiddenFields } from '../../test/principal';
import { waitFor } from '../../test/wait';

/**
 * The principal's app pages (issue 38, item 2) in the pseudo-locale: sign-in, overview, documents,
 * a document and its void, keys, mandates and their grant, the signature page, the L1 confirmation
 * page. Every text a person reads comes from the catalogue, in each state the server renders
 * differently; what is left is the test's own data. The templates, editor, agent contacts, OAuth
 * and error pages are in app-catalogue-pages.test.ts.
 */
useAppStack();

// The mandate's terms: a versioned legal text of the rules (activities/mandates), stored with each mandate as accepted.
const CONSENT = [CONSENT_VERSION, CONSENT_TEXT];

async function outside(html: string, more: readonly string[] = []): Promise<string[]> {
  assert.match(html, /⟦/, 'the page is in the pseudo-locale');
  // A document's audit trail shows each action's code beside its words, and the client's user agent (fetch's `node`).
  const codes = [...html.matchAll(/<code class="muted">([^<]*)<\/code>/g)].map((match) => match[1]);
  const shown = [...more, ...codes, ...(codes.length ? ['node'] : [])];
  // The principal's keys: their scopes (names of the API's) and prefixes (key material) are values, not words.
  const keys = await ApiKey.query(stack.deps.db).where({ principal_id: account.principalId });
  const values = keys.flatMap((key) => [...key.scopes, `${key.prefix}…`]);
  return pageOutsideCatalogue(html, ['Ada Principal', account.email, 'test agent', ...values, ...CONSENT, ...shown]);
}

describe('the app in the pseudo-locale', () => {
  it('sign-in: the e-mail form, its error, the code form, a wrong code, a link that does not work', async () => {
    const login = await pseudo('/login', undefined, false);
    assert.equal(login.status, 200);
    assert.deepEqual(await outside(login.html), []);
    const noEmail = await pseudo('/login', { email: 'nobody' }, false);
    assert.equal(noEmail.status, 400);
    assert.deepEqual(await outside(noEmail.html, ['nobody']), []);
    const code = await pseudo('/login', { email: account.email }, false);
    assert.equal(code.status, 200);
    assert.deepEqual(await outside(code.html), []);
    const wrong = await pseudo('/login/verify', { email: account.email, code: '0000000000', challenge: challengeIn(code.html) }, false);
    assert.equal(wrong.status, 400);
    assert.deepEqual(await outside(wrong.html), []);
    const link = await pseudo('/login/link?token=nothing', undefined, false);
    assert.equal(link.status, 400);
    assert.deepEqual(await outside(link.html), []);
  });

  it('empty lists: overview, every documents section, mandates, the signature page and its refusal', async () => {
    assert.deepEqual(await outside((await pseudo('/')).html), []);
    for (const section of ['waiting', 'sent', 'completed', 'closed', 'all'])
      assert.deepEqual(await outside((await pseudo(`/documents?section=${section}`)).html), [], section);
    assert.deepEqual(await outside((await pseudo('/documents?q=Nothing+like+it')).html, ['Nothing like it']), []);
    assert.deepEqual(await outside((await pseudo('/documents?limit=9999')).html), [], 'a refused query');
    assert.deepEqual(await outside((await pseudo('/mandates')).html), []);
    assert.deepEqual(await outside((await pseudo('/signature')).html), []);
    const refused = await pseudo('/signature', {});
    assert.equal(refused.status, 400);
    assert.deepEqual(await outside(refused.html), []);
  });

  it('keys: the list, a refused label, the new key shown once, revoking it, a key not found', async () => {
    assert.deepEqual(await outside((await pseudo('/keys')).html), []);
    const refused = await pseudo('/keys', { label: ' ' });
    assert.equal(refused.status, 400);
    assert.deepEqual(await outside(refused.html), []);
    const created = await pseudo('/keys', { label: 'Invoice bot' });
    assert.equal(created.status, 201);
    assert.deepEqual(await outside(created.html, ['Invoice bot']), []);
    const other = [...(await pseudo('/keys')).html.matchAll(/data-key-id="([^"]+)"/g)]
      .map((match) => match[1])
      .find((k) => k !== account.keyId);
    assert.ok(other);
    assert.deepEqual(await outside((await pseudo(`/keys/${other}/revoke`)).html, ['Invoice bot']), []);
    assert.equal((await pseudo(`/keys/${other}/revoke`, {})).status, 302);
    assert.deepEqual(await outside((await pseudo('/keys?done=revoked')).html, ['Invoice bot']), []);
    assert.deepEqual(await outside((await pseudo(`/keys/${other}/revoke`)).html, ['Invoice bot']), [], 'revoked already');
    const missing = await pseudo('/keys/key_nothere123456/revoke');
    assert.equal(missing.status, 404);
    assert.deepEqual(await outside(missing.html), [], 'the app’s 404 page');
  });

  it('mandates: the grant form, its errors, the code page, a wrong code, a new code, granted, revoked', async () => {
    assert.deepEqual(await outside((await pseudo('/mandates/new')).html), []);
    const incomplete = await pseudo('/mandates/new', { expires_on: 'soon' });
    assert.equal(incomplete.status, 400);
    assert.deepEqual(await outside(incomplete.html), []);
    const changed = await pseudo('/mandates/new', { consent: 'accepted', consent_version: 'old' });
    assert.deepEqual(await outside(changed.html), [], 'the terms changed');
    const form = hiddenFields((await pseudo('/mandates/new')).html, path('/mandates/new'));
    const fields = { ...form, api_key_id: account.keyId, name: 'Supplier NDAs', level: 'L1', mode: 'both', consent: 'accepted' };
    const started = await pseudo('/mandates/new', fields);
    assert.equal(started.status, 302, started.html);
    const confirm = local(started.location);
    const data = ['Supplier NDAs'];
    assert.deepEqual(await outside((await pseudo(confirm)).html, data), []);
    const wrong = await pseudo(confirm, { code: '12' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(await outside(wrong.html, data), []);
    assert.equal((await pseudo(confirm, { resend: '1' })).status, 302);
    assert.deepEqual(await outside((await pseudo(`${confirm}?done=resent`)).html, data), []);
    const code = /\b(\d{10})\b/.exec((await latestMail(stack, account.email, 'mandate-code'))?.text ?? '')?.[1];
    const granted = await pseudo(confirm, { code: code ?? '' });
    assert.equal(granted.status, 302, granted.html);
    assert.deepEqual(await outside((await pseudo(local(granted.location))).html, data), []);
    assert.deepEqual(await outside((await pseudo(confirm)).html, data), [], 'an active mandate');
    const id = confirm.split('/')[2];
    assert.deepEqual(await outside((await pseudo(`/mandates/${id}/revoke`)).html, data), []);
    const revoked = await pseudo(`/mandates/${id}/revoke`, {});
    assert.equal(revoked.status, 302);
    assert.deepEqual(await outside((await pseudo(local(revoked.location))).html, data), []);
    assert.deepEqual(await outside((await pseudo(`/mandates/${id}/revoke`)).html, data), [], 'revoked already');
  });

  it('documents: the overview and inbox with a document, its page, the L1 confirmation, the void form and its refusal', async () => {
    const other = await createAccount(stack.deps.db, { name: 'Olivia Owner' });
    const { nda } = await seedSamples(stack, other);
    await grantMandate(stack, account, { level: 'L1', mode: 'inbound', name: 'Inbound NDAs' });
    const sent = await createDocument(stack, other, {
      template_id: nda.id,
      name: 'Overview NDA',
      send: true,
      signers: [
        { name: 'Ada Principal', email: account.email },
        { name: 'Rey Roe', email: `rey-${Date.now()}@example.test` },
      ],
    });
    assert.equal(sent.status, 201, sent.text);
    const request = await call(stack.url, 'POST', `/v1/documents/${sent.body.document_id}/sign-requests`, {
      key: account.key,
      body: { reason: 'Quarterly NDA' },
    });
    assert.equal(request.status, 201, request.text);
    const data = [
      'Olivia Owner',
      'Overview NDA',
      'Rey Roe',
      'Quarterly NDA',
      'Inbound NDAs',
      'Supplier NDAs',
      'Disclosing Party',
      'Receiving Party',
    ];
    assert.deepEqual(await outside((await pseudo('/')).html, data), []);
    for (const section of ['waiting', 'all'])
      assert.deepEqual(await outside((await pseudo(`/documents?section=${section}`)).html, data), [], section);
    assert.deepEqual(await outside((await pseudo(`/documents/${sent.body.document_id}`)).html, data), []);

    const confirm = new URL(request.body.confirm_url).pathname.slice(path('').length);
    assert.deepEqual(await outside((await pseudo(confirm)).html, data), [], 'the L1 confirmation page');
    const declined = await pseudo(`${confirm}/decline`, {});
    assert.equal(declined.status, 200);
    assert.deepEqual(await outside(declined.html, data), [], 'declined');

    const { nda: mine } = await seedSamples(stack, account);
    const own = await createDocument(stack, account, {
      template_id: mine.id,
      name: 'Own NDA',
      send: true,
      signers: [
        { name: 'Ada Principal', email: account.email },
        { name: 'Rey Roe', email: `rey-${Date.now()}@example.test` },
      ],
    });
    assert.equal(own.status, 201, own.text);
    // The invitation mail's audit line is the service's own (actor `system`): its trail then names the service.
    await waitFor(
      'an audit line by the service',
      async () => Boolean(await AuditEvent.query(stack.deps.db).findOne({ document_id: own.body.document_id, actor_type: 'system' })),
      20_000,
    );
    const page = await pseudo(`/documents/${own.body.document_id}`);
    assert.match(page.html, /data-testid="void-form"/);
    assert.deepEqual(await outside(page.html, [...data, 'Own NDA']), [], 'with its void form');
    const refused = await pseudo(`/documents/${own.body.document_id}/void`, { reason: ' ' });
    assert.equal(refused.status, 400);
    assert.deepEqual(await outside(refused.html, data), [], 'a void refused');
    assert.equal((await pseudo(`/documents/${own.body.document_id}/void`, { reason: 'Wrong party' })).status, 302);
    assert.deepEqual(await outside((await pseudo(`/documents/${own.body.document_id}`)).html, [...data, 'Own NDA', 'Wrong party']), []);
    assert.deepEqual(await outside((await pseudo('/documents?section=closed')).html, [...data, 'Own NDA']), []);
  });
});
