import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { UNREACHABLE } from '../../activities/oauth/document-fetcher';
import { ApiKey } from '../../db/models';
import { type Account, createAccount } from '../../test/factories';
import { authorize, consentFields, DocumentServer, oauthStack, signedIn } from '../../test/oauth';
import { freePort } from '../../test/ports';
import { type AppClient, giveAppearance, grantMandate } from '../../test/principal';
import type { Stack } from '../../test/stack';

/** A name server on loopback that counts the questions it is asked and never answers one. */
async function stalledNameServer(): Promise<{ address: string; queries: () => number; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  let queries = 0;
  socket.on('message', () => {
    queries += 1;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    queries: () => queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

function authorizeQuery(appPath: string, params: Record<string, string>): string {
  return `${appPath}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 's',
    ...params,
  })}`;
}

describe('OAuth before sign-in, bounded document fetches and truthful consent (issue 37)', () => {
  let stack: Stack;
  let documents: DocumentServer;
  let account: Account;
  let app: AppClient;
  let appPath: string;

  before(async () => {
    documents = await new DocumentServer().start();
    stack = await oauthStack(documents);
    account = await createAccount(stack.deps.db, { name: 'Stella Stranger-Proof' });
    app = await signedIn(stack, account.email);
    appPath = app.appPath;
  });

  after(async () => {
    await stack?.close();
    await documents?.close();
  });

  async function register(redirectUri: string): Promise<string> {
    const reply = await fetch(`${stack.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Anyone', redirect_uris: [redirectUri] }),
    });
    assert.equal(reply.status, 201);
    return ((await reply.json()) as { client_id: string }).client_id;
  }

  it("sends a stranger to sign in, never to a client's URI, and fetches nothing before sign-in", async () => {
    const phishing = 'https://evil.example/landing';
    const clientId = await register(phishing);
    const bad = authorizeQuery(appPath, { client_id: clientId, redirect_uri: phishing, response_type: 'token' });
    const stranger = await fetch(`${stack.url}${bad}`, { redirect: 'manual' });
    assert.equal(stranger.status, 302);
    const location = new URL(stranger.headers.get('location')!, stack.url);
    assert.equal(location.origin, new URL(stack.url).origin, 'the stranger stays on the service');
    assert.equal(location.pathname, `${appPath}/login`);

    // A redirect URI the client did not register: the service's own page, no redirect at all.
    const unregistered = await fetch(
      `${stack.url}${authorizeQuery(appPath, { client_id: clientId, redirect_uri: 'https://other.example/cb' })}`,
      { redirect: 'manual' },
    );
    assert.equal(unregistered.status, 400);
    assert.equal(unregistered.headers.get('location'), null);
    assert.match(await unregistered.text(), /data-testid="oauth-refused"/);

    // A metadata-document client: nothing is fetched for a stranger.
    const documentClient = documents.serve('/stranger/client.json', { client_name: 'Doc', redirect_uris: [phishing] });
    const before = documents.requests.length;
    const anonymous = await fetch(`${stack.url}${authorizeQuery(appPath, { client_id: documentClient, redirect_uri: phishing })}`, {
      redirect: 'manual',
    });
    assert.equal(anonymous.status, 302);
    assert.equal(new URL(anonymous.headers.get('location')!, stack.url).pathname, `${appPath}/login`);
    assert.equal(documents.requests.length, before, 'no document was fetched for a stranger');

    // Signed in, the same request's refusal goes back to the client it validated.
    const signed = await app.get(bad);
    assert.equal(signed.status, 302);
    const back = new URL(signed.headers.get('location')!);
    assert.equal(back.origin, 'https://evil.example');
    assert.equal(back.searchParams.get('error'), 'unsupported_response_type');
  });

  it("a metadata host whose name server never answers holds no thread: /static and another tenant's token check answer meanwhile", async () => {
    const dns = await stalledNameServer();
    const other = await createAccount(stack.deps.db, { name: 'Otto Other-Tenant' });
    const otherApp = await signedIn(stack, other.email);
    const redirect = 'http://127.0.0.1/cb';
    const { tokens } = await authorize(stack, otherApp, {
      clientId: await register(redirect),
      redirectUri: redirect,
      resource: `${stack.config.publicUrl}/v1`,
    });
    const api = await stack.withEnv({ SVC_OAUTH_DNS_SERVERS: dns.address, SVC_OAUTH_FETCH_CONCURRENCY: '2' });
    try {
      const headers = { cookie: app.cookie };
      // Strangers first: nothing asked of any name server.
      for (let i = 0; i < 5; i++) {
        const query = authorizeQuery(appPath, { client_id: `https://stalled.example/s${i}.json`, redirect_uri: redirect });
        assert.equal((await fetch(`${api.url}${query}`, { redirect: 'manual' })).status, 302);
      }
      assert.equal(dns.queries(), 0, 'no lookup for a stranger');

      let settled = 0;
      const stalled = Array.from({ length: 12 }, (_, i) =>
        fetch(`${api.url}${authorizeQuery(appPath, { client_id: `https://stalled.example/c${i}.json`, redirect_uri: redirect })}`, {
          headers,
          redirect: 'manual',
        }).then(async (reply) => {
          settled += 1;
          return { status: reply.status, page: await reply.text() };
        }),
      );
      while (dns.queries() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const [asset, me] = await Promise.all([
        fetch(`${api.url}/static/app.css`),
        fetch(`${api.url}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      ]);
      assert.equal(asset.status, 200);
      assert.equal(me.status, 200);
      assert.equal(settled, 0, 'the stalled lookups were still waiting while the others were answered');

      const answers = await Promise.all(stalled);
      for (const answer of answers) {
        assert.equal(answer.status, 400);
        assert.ok(answer.page.includes(UNREACHABLE.replace("'", '&#39;')), answer.page.slice(0, 400));
      }
      // One lookup for the host (A and AAAA), however many asked; the rest answered from memory.
      assert.ok(dns.queries() <= 4, `${dns.queries()} questions to the name server`);

      // Every network failure reads the same: a closed port and a 404 say what the silent name server said.
      const closed = `https://127.0.0.1:${await freePort()}/client.json`;
      const missing = documents.url('/nothing/here.json');
      for (const clientId of [closed, missing]) {
        const reply = await app.get(authorizeQuery(appPath, { client_id: clientId, redirect_uri: redirect }));
        assert.equal(reply.status, 400);
        assert.ok((await reply.text()).includes(UNREACHABLE.replace("'", '&#39;')), clientId);
      }
    } finally {
      await api.close();
      await dns.close();
    }
  });

  it('removes fetched client rows no connected app uses once they are old, and keeps a used one', async () => {
    const redirect = 'http://127.0.0.1/cb';
    const used = documents.serve('/kept/client.json', { client_name: 'Kept', redirect_uris: [redirect] });
    await authorize(stack, app, { clientId: used, redirectUri: redirect, resource: `${stack.config.publicUrl}/mcp` });
    const db = stack.deps.db;
    const old = new Date(Date.now() - 8 * 24 * 3600_000);
    await db('oauth_clients').where({ id: used }).update({ fetched_at: old });
    const unused = 'https://gone.example/client.json';
    await db('oauth_clients').insert({
      id: unused,
      kind: 'metadata',
      client_name: 'Gone',
      redirect_uris: JSON.stringify([redirect]),
      fetched_at: old,
    });
    const fresh = documents.serve('/fresh/client.json', { client_name: 'Fresh', redirect_uris: [redirect] });
    assert.equal((await app.get(authorizeQuery(appPath, { client_id: fresh, redirect_uri: redirect }))).status, 200);
    const left = (await db('oauth_clients').whereIn('id', [used, unused, fresh])).map((row: { id: string }) => row.id).sort();
    assert.deepEqual(left, [fresh, used].sort());
  });

  it('a new authorization of a client holding a mandate, from a new loopback port, signs only if the page showed the mandate', async () => {
    const clientId = documents.serve('/native/trusted.json', {
      client_name: 'Trusted Native',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const mcp = `${stack.config.publicUrl}/v1`;
    const first = await authorize(stack, app, { clientId, redirectUri: 'http://127.0.0.1:53682/callback', resource: mcp });
    const connected = (await ApiKey.query(stack.deps.db)
      .where({ principal_id: account.principalId, kind: 'oauth', oauth_client_id: clientId })
      .first())!;
    await giveAppearance(stack, account);
    const mandate = await grantMandate(stack, { ...account, keyId: connected.id }, { level: 'L2' });

    // The grant approved before the mandate gets documents:sign from it: the principal granted it to this app.
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token!, client_id: clientId });
    assert.ok(refreshed.scope.split(' ').includes('documents:sign'));

    // Another process starts a flow with the same client id on its own port.
    async function secondFlow(dropShown: boolean): Promise<{ page: string; scope: string; token: string }> {
      const verifier = oauth.generateRandomCodeVerifier();
      const redirectUri = `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 1000)}/callback`;
      const query = authorizeQuery(appPath, {
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        resource: mcp,
      });
      const page = await (await app.get(query)).text();
      const fields = consentFields(page);
      if (dropShown) delete fields.mandates_shown;
      const posted = await app.post(`${appPath}/oauth/authorize`, { ...fields, decision: 'approve' });
      assert.equal(posted.status, 302);
      const code = new URL(posted.headers.get('location')!).searchParams.get('code')!;
      const tokens = await tokenRequest({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      });
      return { page, scope: tokens.scope, token: tokens.access_token };
    }

    const hidden = await secondFlow(true);
    assert.match(hidden.page, new RegExp(`data-testid="consent-mandate" data-mandate-id="${mandate.id}"`));
    assert.match(hidden.page, /data-testid="redirect-port">4\d{4}</);
    assert.doesNotMatch(hidden.page, /It cannot sign for you/);
    assert.ok(!hidden.scope.split(' ').includes('documents:sign'), 'a page that did not carry the mandate gives no documents:sign');
    const me = (await (await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${hidden.token}` } })).json()) as {
      scopes: string[];
    };
    assert.ok(!me.scopes.includes('documents:sign'), 'the token itself cannot sign');

    const shown = await secondFlow(false);
    assert.ok(shown.scope.split(' ').includes('documents:sign'), 'approved on the page that showed the mandate');
  });

  it('takes a loopback redirect URI on any port only from a client that declares a loopback one', async () => {
    const web = documents.serve('/web/client.json', { client_name: 'Web Only', redirect_uris: ['https://web.example/cb'] });
    const reply = await app.get(authorizeQuery(appPath, { client_id: web, redirect_uri: 'http://127.0.0.1:41234/cb' }));
    assert.equal(reply.status, 400);
    assert.equal(reply.headers.get('location'), null);
  });

  async function tokenRequest(fields: Record<string, string>): Promise<{ scope: string; access_token: string; refresh_token: string }> {
    const reply = await fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const body = await reply.json();
    assert.equal(reply.status, 200, JSON.stringify(body));
    return body as { scope: string; access_token: string; refresh_token: string };
  }
});
