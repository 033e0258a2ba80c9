import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Account, createAccount } from '../../test/factories';
import { authorizationPath, consent, consentFields, DocumentServer, oauthStack, signedIn } from '../../test/oauth';
import type { AppClient } from '../../test/principal';
import type { Stack } from '../../test/stack';

const REDIRECT = 'http://127.0.0.1:9/cb';

function authorizeQuery(stack: Stack, clientId: string): Promise<string> {
  return authorizationPath(stack, { clientId, redirectUri: REDIRECT, resource: `${stack.config.publicUrl}/mcp`, state: 'x' });
}

describe('OAuth against hostile clients: metadata documents on private addresses or naming another client, hostile names', () => {
  let stack: Stack;
  let strict: { url: string; close(): Promise<void> };
  let documents: DocumentServer;
  let account: Account;
  let app: AppClient;

  before(async () => {
    documents = await new DocumentServer().start();
    stack = await oauthStack(documents);
    // The same service without the development allow-list: loopback is as private as any other private address.
    strict = await stack.withEnv({ SVC_WEBHOOK_ALLOWED_HOSTS: '' });
    account = await createAccount(stack.deps.db, { name: 'Hana Hostile' });
    app = await signedIn(stack, account.email);
  });

  after(async () => {
    await strict?.close();
    await stack?.close();
    await documents?.close();
  });

  it('refuses a metadata document on a private address, as webhook URLs are refused, and never redirects to its URIs', async () => {
    const clientId = documents.serve('/private/client.json', { client_name: 'Private', redirect_uris: [REDIRECT] });
    const reply = await fetch(`${strict.url}${await authorizeQuery(stack, clientId)}`, {
      headers: { cookie: app.cookie },
      redirect: 'manual',
    });
    assert.equal(reply.status, 400);
    const page = await reply.text();
    assert.match(page, /data-testid="oauth-refused"/);
    assert.match(page, /could not be fetched from its URL/);
    assert.equal(reply.headers.get('location'), null);
  });

  it('refuses a metadata document whose client_id is not its own URL, and one that is not https', async () => {
    const path = '/liar/client.json';
    documents.documents.set(
      path,
      JSON.stringify({ client_id: 'https://trusted.example/client.json', client_name: 'Liar', redirect_uris: [REDIRECT] }),
    );
    const reply = await app.get(await authorizeQuery(stack, documents.url(path)));
    assert.equal(reply.status, 400);
    assert.match(await reply.text(), /client_id is not the URL it was fetched from/);
    const plain = await app.get(await authorizeQuery(stack, documents.url(path).replace('https:', 'http:')));
    assert.equal(plain.status, 400);
  });

  it('shows a hostile client_name escaped on the consent page', async () => {
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';
    const clientId = documents.serve('/hostile/client.json', { client_name: hostile, redirect_uris: [REDIRECT] });
    const reply = await app.get(await authorizeQuery(stack, clientId));
    assert.equal(reply.status, 200);
    const page = await reply.text();
    assert.ok(!page.includes('<script>alert'), 'no script element from the name');
    assert.ok(!page.includes('<img src=x'), 'no element from the name');
    assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(reply.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  });

  it('refuses a redirect URI the client did not register, without redirecting to it', async () => {
    const clientId = documents.serve('/exact/client.json', { client_name: 'Exact', redirect_uris: [REDIRECT] });
    const query = (await authorizeQuery(stack, clientId)).replace(
      encodeURIComponent(REDIRECT),
      encodeURIComponent('http://127.0.0.1:9/other'),
    );
    const reply = await app.get(query);
    assert.equal(reply.status, 400);
    assert.equal(reply.headers.get('location'), null);
  });

  it('takes the consent only by a form post of the session (CSRF), and a denial goes back as access_denied with the state', async () => {
    const clientId = documents.serve('/consent/client.json', { client_name: 'Consent', redirect_uris: [REDIRECT] });
    const query = await authorizeQuery(stack, clientId);
    const page = await (await app.get(query)).text();
    const { _csrf, ...fields } = consentFields(page);
    assert.ok(_csrf);
    const forged = await app.post(`${new URL(stack.config.appUrl).pathname}/oauth/authorize`, { ...fields, decision: 'approve' });
    assert.equal(forged.status, 400);
    assert.equal(forged.headers.get('location'), null);
    const { location } = await consent(app, new URL(query, stack.url), 'deny');
    const back = new URL(location);
    assert.deepEqual(
      [back.searchParams.get('error'), back.searchParams.get('state'), back.searchParams.get('code')],
      ['access_denied', 'x', null],
    );
  });
});
