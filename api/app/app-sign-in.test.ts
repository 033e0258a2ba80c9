import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Mandate, Principal } from '../../db/models';
import { account, app, csrf, ndaPdf, page, path, postMultipart, stack, useAppStack } from '../../test/fixtures/app';
import { call } from '../../test/http';
import { signaturePng } from '../../test/images';
import { AppClient, grantMandate } from '../../test/principal';

useAppStack();

describe('sign-in and form tokens', () => {
  it('every page sends a visitor without a session to sign in, then back', async () => {
    const visitor = new AppClient(stack, account.email);
    for (const suffix of [
      '/',
      '/signature',
      '/signature/image',
      '/keys',
      '/keys/key_x/revoke',
      '/mandates',
      '/mandates/new',
      '/mandates/mdt_x/confirm',
      '/mandates/mdt_x/revoke',
      '/templates',
    ]) {
      const response = await visitor.get(path(suffix));
      assert.equal(response.status, 302, suffix);
      assert.equal(response.headers.get('location'), `${path('/login')}?next=${encodeURIComponent(path(suffix))}`, suffix);
    }
    for (const suffix of ['/keys', '/signature', '/mandates/new', '/templates']) {
      const response = await visitor.post(path(suffix), { label: 'x' });
      assert.equal(response.status, 302, suffix);
      assert.match(response.headers.get('location') ?? '', /\/login\?next=/);
    }
  });

  it('a POST without the session’s form token is refused with a 400 page, and changes nothing', async () => {
    const mandate = await grantMandate(stack, account, { level: 'L1', name: 'token check' });
    const keysBefore = (await page('/keys')).html.match(/data-testid="key-row"/g)?.length;
    const posts: Array<[string, Record<string, string>]> = [
      ['/keys', { label: 'sneaky' }],
      [`/keys/${account.keyId}/revoke`, {}],
      ['/signature', { drawn: `data:image/png;base64,${signaturePng().toString('base64')}` }],
      ['/mandates/new', { api_key_id: account.keyId, name: 'x', level: 'L1', mode: 'both', consent: 'accepted' }],
      [`/mandates/${mandate.id}/confirm`, { code: '123456' }],
      [`/mandates/${mandate.id}/revoke`, {}],
      ['/templates', { name: 'x', widgets: '[]' }],
    ];
    for (const [suffix, fields] of posts) {
      for (const token of [undefined, 'forged']) {
        const response = await app.post(path(suffix), token ? { ...fields, _csrf: token } : fields);
        assert.equal(response.status, 400, `${suffix} ${token}`);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await response.text(), /(role="alert"[^>]*>|<p>)This form has expired or did not come from this app/, suffix);
      }
    }
    const multipart = await postMultipart(
      '/templates',
      { name: 'x', widgets: '[]' },
      { pdf: { name: 'a.pdf', type: 'application/pdf', bytes: ndaPdf } },
    );
    assert.equal(multipart.status, 400);
    // The right token from another site's page is still refused: the Origin must be this app's.
    const crossSite = await fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie, origin: 'https://evil.example' },
      body: new URLSearchParams({ label: 'cross-site', _csrf: await csrf() }).toString(),
      redirect: 'manual',
    });
    assert.equal(crossSite.status, 400, 'a cross-origin form post is refused');
    const sameSite = await fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie, origin: stack.url },
      body: new URLSearchParams({ label: 'same-site', _csrf: await csrf() }).toString(),
      redirect: 'manual',
    });
    assert.notEqual(sameSite.status, 400, 'a post from this origin passes the check');
    await call(stack.url, 'GET', '/v1/me', { key: account.key });
    assert.equal(
      (await page('/keys')).html.match(/data-testid="key-row"/g)?.length,
      (keysBefore ?? 0) + 1,
      'only the same-origin key was made',
    );
    assert.equal((await Mandate.query(stack.deps.db).findById(mandate.id))!.status, 'active');
    assert.equal((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status, 200);
    assert.equal((await Principal.query(stack.deps.db).findById(account.principalId))!.signature_sha256, null);
  });
});
