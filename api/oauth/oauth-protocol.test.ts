// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { stopUrl } from '../../activities/accounts/stop';
import { ApiKey } from '../../db/models';
import { type Account, createAccount } from '../../test/factories';
import { authorizationPath, authorize, consent, DocumentServer, discover, insecure, oauthStack, signedIn } from '../../test/oauth';
import { type AppClient, giveAppearance, grantMandate } from '../../test/principal';
import type { Stack } from '../../test/stack';

const REDIRECT = 'http://127.0.0.1:9/cb';

describe('OAuth protocol (oauth4webapi): discovery, registration, PKCE, codes, refresh rotation, resources, scopes', () => {
  let stack: Stack;
  let documents: DocumentServer;
  let account: Account;
  let app: AppClient;
  let registered: string;

  before(async () => {
    documents = await new DocumentServer().start();
    stack = await oauthStack(documents);
    account = await createAccount(stack.deps.db, { name: 'Paula Protocol' });
    app = await signedIn(stack, account.email);
  });

  after(async () => {
    await stack?.close();
    await documents?.close();
  });

  const api = () => `${stack.config.publicUrl}/v1`;
  const mcp = () => `${stack.config.publicUrl}/mcp`;

  async function token(fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded') {
    const reply = await fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: reply.status, body: (await reply.json()) as { error?: string; access_token?: string; refresh_token?: string } };
  }

  async function authorizationUrl(params: Record<string, string>): Promise<URL> {
    const url = new URL(`${stack.config.appUrl}/oauth/authorize`);
    url.search = new URLSearchParams(params).toString();
    return url;
  }

  it('publishes RFC 8414 and RFC 9728 metadata that oauth4webapi accepts', async () => {
    const as = await discover(stack);
    assert.equal(as.issuer, stack.config.publicUrl);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['none']);
    assert.equal(as.client_id_metadata_document_supported, true);
    assert.ok(!(as.scopes_supported as string[]).includes('documents:sign'));
    for (const resource of [mcp(), api()]) {
      const url = new URL(resource);
      const response = await oauth.resourceDiscoveryRequest(url, insecure);
      const metadata = await oauth.processResourceDiscoveryResponse(url, response);
      assert.deepEqual(metadata.authorization_servers, [stack.config.publicUrl]);
    }
  });

  it('registers a public client dynamically (RFC 7591) and refuses a confidential or unsafe one', async () => {
    const as = await discover(stack);
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: 'Registered Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      insecure,
    );
    const client = await oauth.processDynamicClientRegistrationResponse(response);
    registered = client.client_id;
    assert.match(registered, /^oac_/);
    assert.equal(client.client_secret, undefined);
    for (const body of [
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
      { redirect_uris: ['javascript:alert(1)'] },
      { redirect_uris: ['http://evil.example/cb'] },
      { redirect_uris: [] },
    ]) {
      const reply = await fetch(`${stack.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.match(((await reply.json()) as { error: string }).error, /^invalid_/);
    }
    const broken = await fetch(`${stack.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris":',
    });
    assert.equal(broken.status, 400);
  });

  it('refuses PKCE plain and a missing challenge (redirected with invalid_request), and a wrong verifier (invalid_grant, the code then spent)', async () => {
    const base = { client_id: registered, redirect_uri: REDIRECT, response_type: 'code', state: 's1' };
    const plain: Record<string, string> = { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' };
    for (const pkce of [plain, {}]) {
      const url = await authorizationUrl({ ...base, ...pkce });
      const reply = await app.get(`${url.pathname}${url.search}`);
      assert.equal(reply.status, 302);
      const back = new URL(reply.headers.get('location')!);
      assert.equal(back.searchParams.get('error'), 'invalid_request');
      assert.equal(back.searchParams.get('state'), 's1');
    }
    const verifier = oauth.generateRandomCodeVerifier();
    const { location } = await consent(
      app,
      await authorizationUrl({
        ...base,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: api(),
      }),
    );
    const code = new URL(location).searchParams.get('code')!;
    const wrong = await token({
      grant_type: 'authorization_code',
      code,
      client_id: registered,
      redirect_uri: REDIRECT,
      code_verifier: oauth.generateRandomCodeVerifier(),
    });
    assert.deepEqual([wrong.status, wrong.body.error], [400, 'invalid_grant']);
    const right = await token({
      grant_type: 'authorization_code',
      code,
      client_id: registered,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    assert.deepEqual([right.status, right.body.error], [400, 'invalid_grant'], 'a code refused once is spent');
  });

  it('uses a code once, rotates refresh tokens, and a reused old refresh token revokes the whole grant', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const { location } = await consent(
      app,
      await authorizationUrl({
        client_id: registered,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: api(),
      }),
    );
    const code = new URL(location).searchParams.get('code')!;
    const exchange = { grant_type: 'authorization_code', code, client_id: registered, redirect_uri: REDIRECT, code_verifier: verifier };
    const first = await token(exchange);
    assert.equal(first.status, 200);
    const again = await token(exchange);
    assert.deepEqual([again.status, again.body.error], [400, 'invalid_grant'], 'a code is used once');

    const rotated = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: registered });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.refresh_token, first.body.refresh_token);
    const me = await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${rotated.body.access_token}` } });
    assert.equal(me.status, 200);

    const replay = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: registered });
    assert.deepEqual([replay.status, replay.body.error], [400, 'invalid_grant'], 'the old refresh token is refused');
    const newest = await token({ grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token!, client_id: registered });
    assert.deepEqual([newest.status, newest.body.error], [400, 'invalid_grant'], 'and the whole grant with it');
  });

  it('refuses a resource that is not this service (invalid_target), at the authorization and the token endpoint', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const params = {
      client_id: registered,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
    };
    const foreign = await authorizationUrl({ ...params, resource: 'https://other.example/mcp' });
    const reply = await app.get(`${foreign.pathname}${foreign.search}`);
    assert.equal(new URL(reply.headers.get('location')!).searchParams.get('error'), 'invalid_target');
    const { location } = await consent(app, await authorizationUrl({ ...params, resource: mcp() }));
    const code = new URL(location).searchParams.get('code')!;
    const other = await token({
      grant_type: 'authorization_code',
      code,
      client_id: registered,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: api(),
    });
    assert.deepEqual([other.status, other.body.error], [400, 'invalid_target']);
  });

  it('a connected app never gets documents:sign from consent; a mandate granted to it gives it; its stop link revokes it', async () => {
    const { tokens } = await authorize(stack, app, {
      clientId: registered,
      redirectUri: REDIRECT,
      resource: api(),
      scope: 'documents:read documents:sign',
    });
    assert.ok(!tokens.scope?.split(' ').includes('documents:sign'));
    const connected = await ApiKey.query(stack.deps.db)
      .where({ principal_id: account.principalId, kind: 'oauth', oauth_client_id: registered })
      .first();
    assert.ok(connected && !connected.scopes.includes('documents:sign'));
    const grantPage = await (await app.get(`${app.appPath}/mandates/new`)).text();
    assert.match(grantPage, new RegExp(`<option value="${connected.id}"[^>]*>Registered Agent \\(connected app\\)</option>`));
    await giveAppearance(stack, account);
    const mandate = await grantMandate(stack, { ...account, keyId: connected.id }, { level: 'L2' });
    const keyId = connected.id;
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: registered });
    assert.equal(refreshed.status, 200);
    assert.ok((refreshed.body as { scope: string }).scope.split(' ').includes('documents:sign'), 'the mandate added documents:sign');
    assert.match(keyId, /^key_/);

    // The mandate's "stop this agent" link stops the connected app as it stops a key: its next call is 401.
    const accessToken = (refreshed.body as { access_token: string }).access_token;
    assert.equal((await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status, 200);
    const stop = new URL(stopUrl(stack.config.appUrl, stack.deps.secret, mandate.id));
    const stopped = await fetch(`${stack.url}${stop.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stop.origin },
      body: new URLSearchParams({ what: 'key', _csrf: '' }).toString(),
      redirect: 'manual',
    });
    assert.equal(stopped.status, 302);
    assert.equal((await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status, 401);
  });

  it("matches a native client's loopback redirect URI on any port (RFC 8252), never another host, path or scheme", async () => {
    const clientId = documents.serve('/native/client.json', {
      client_name: 'Native Agent',
      redirect_uris: ['http://127.0.0.1/callback', 'https://agent.example/cb'],
    });
    // The app listens on the port its system gave it now: the code comes back there and is exchanged.
    const ephemeral = 'http://127.0.0.1:53682/callback';
    const { tokens } = await authorize(stack, app, { clientId, redirectUri: ephemeral, resource: api() });
    assert.equal((await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 200);

    const refused = async (redirectUri: string) => {
      const reply = await app.get(await authorizationPath(stack, { clientId, redirectUri, resource: api(), state: 'n' }));
      return reply.status === 400 && reply.headers.get('location') === null;
    };
    for (const other of [
      'http://127.0.0.1:53682/other',
      'http://127.0.0.1:53682/callback?x=1',
      'http://localhost:53682/callback',
      'http://[::1]:53682/callback',
      'https://127.0.0.1:53682/callback',
      'https://agent.example:8443/cb',
      'http://127.0.0.1:53682/callback#f',
    ])
      assert.ok(await refused(other), other);
  });

  it("revokes a grant by its refresh token or its access token (RFC 7009); an unknown or another client's token changes nothing", async () => {
    const as = await discover(stack);
    assert.equal(as.revocation_endpoint, `${stack.config.publicUrl}/oauth/revoke`);
    const client: oauth.Client = { client_id: registered };
    const revoke = async (value: string, hint?: string) =>
      oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, oauth.None(), value, {
          ...insecure,
          ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
        }),
      );
    const refresh = (value: string, clientId = registered) =>
      token({ grant_type: 'refresh_token', refresh_token: value, client_id: clientId });

    // By the refresh token: it and the rest of its grant no longer refresh.
    const byRefresh = await authorize(stack, app, { clientId: registered, redirectUri: REDIRECT, resource: api() });
    await revoke(byRefresh.tokens.refresh_token!, 'refresh_token');
    assert.deepEqual(((r) => [r.status, r.body.error])(await refresh(byRefresh.tokens.refresh_token!)), [400, 'invalid_grant']);

    // By the access token: its grant's refresh token is revoked too.
    const byAccess = await authorize(stack, app, { clientId: registered, redirectUri: REDIRECT, resource: api() });
    await revoke(byAccess.tokens.access_token, 'access_token');
    assert.deepEqual(((r) => [r.status, r.body.error])(await refresh(byAccess.tokens.refresh_token!)), [400, 'invalid_grant']);

    // Unknown tokens and another client's tokens: 200, nothing revoked.
    const kept = await authorize(stack, app, { clientId: registered, redirectUri: REDIRECT, resource: api() });
    await revoke('no-such-token');
    const other = documents.serve('/revoker/client.json', { client_name: 'Revoker', redirect_uris: [REDIRECT] });
    const reply = await fetch(`${stack.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: kept.tokens.refresh_token!, client_id: other }).toString(),
    });
    assert.equal(reply.status, 200);
    assert.equal((await refresh(kept.tokens.refresh_token!)).status, 200, 'another client cannot revoke this grant');

    // Malformed: RFC 6749 errors, never a 500.
    const missing = await fetch(`${stack.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: registered }).toString(),
    });
    assert.deepEqual([missing.status, ((await missing.json()) as { error: string }).error], [400, 'invalid_request']);
    const json = await fetch(`${stack.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'x', client_id: registered }),
    });
    assert.equal(json.status, 400);
  });

  it('answers malformed and oversized token requests with RFC 6749 errors, never a 500', async () => {
    for (const [fields, type, expected] of [
      [{ grant_type: 'password', username: 'a', password: 'b' }, undefined, 'unsupported_grant_type'],
      [{ grant_type: 'authorization_code' }, undefined, 'invalid_request'],
      [{ grant_type: 'refresh_token', refresh_token: 'nope', client_id: registered }, undefined, 'invalid_grant'],
      [{ grant_type: 'authorization_code', code: 'x' }, 'application/json', 'invalid_request'],
    ] as const) {
      const reply = await token(fields as Record<string, string>, type);
      assert.equal(reply.status, 400, JSON.stringify(fields));
      assert.equal(reply.body.error, expected);
    }
    const huge = await fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=${'a'.repeat(100_000)}`,
    });
    assert.equal(huge.status, 413);
    assert.ok(((await huge.json()) as { error: string }).error);
  });
});
