import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Account, createAccount } from '../../test/factories';
import { authorize, consent, DocumentServer, oauthStack, signedIn } from '../../test/oauth';
import type { AppClient } from '../../test/principal';
import type { Stack } from '../../test/stack';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** A desktop MCP client's OAuth state, as the SDK asks a provider to keep it; the browser step is recorded, not opened. */
class DesktopProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;

  constructor(readonly clientMetadataUrl: string) {}

  get redirectUrl() {
    return REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Desktop Test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }
}

describe('an MCP client connects over HTTP with OAuth (discovery, metadata document, PKCE, consent in the app)', () => {
  let stack: Stack;
  let documents: DocumentServer;
  let account: Account;
  let app: AppClient;
  let clientId: string;

  before(async () => {
    documents = await new DocumentServer().start();
    stack = await oauthStack(documents);
    account = await createAccount(stack.deps.db, { name: 'Olive Oauth' });
    app = await signedIn(stack, account.email);
    clientId = documents.serve('/desktop/client.json', {
      client_name: 'Desktop Test',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
  });

  after(async () => {
    await stack?.close();
    await documents?.close();
  });

  it('discovers from the 401, is approved in the app, lists tools and reads `me`; revoking the connected app makes the next call 401', async () => {
    const mcpUrl = new URL(`${stack.config.publicUrl}/mcp`);
    const challenge = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(challenge.status, 401);
    assert.equal(
      challenge.headers.get('www-authenticate'),
      `Bearer realm="svc", resource_metadata="${stack.config.publicUrl}/.well-known/oauth-protected-resource/mcp"`,
    );

    const provider = new DesktopProvider(clientId);
    const first = new Client({ name: 'desktop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await assert.rejects(first.connect(transport), UnauthorizedError);
    const asked = provider.authorizationUrl!;
    assert.ok(asked, 'the SDK sent the user to the authorization endpoint');
    assert.equal(asked.searchParams.get('client_id'), clientId, 'the metadata document URL is the client id');
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(asked.searchParams.get('resource'), mcpUrl.href);

    const { page, location } = await consent(app, asked);
    assert.match(page, /Desktop Test/);
    assert.match(page, /127\.0\.0\.1:9/, 'the consent page names the redirect host');
    const back = new URL(location);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('iss'), stack.config.publicUrl);
    await transport.finishAuth(back.searchParams.get('code')!);

    const client = new Client({ name: 'desktop', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'me'));
    const me = await client.callTool({ name: 'me', arguments: {} });
    assert.notEqual(me.isError, true, JSON.stringify(me));
    assert.match(JSON.stringify(me.content), new RegExp(account.email.replace('.', '\\.')));

    // The MCP token is no REST token: the public REST API refuses it.
    const token = provider.saved!.access_token;
    const rest = await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(rest.status, 401);
    assert.match(rest.headers.get('www-authenticate') ?? '', /resource_metadata=".*\/oauth-protected-resource\/v1", error="invalid_token"/);

    // A token issued for the REST resource is refused at /mcp.
    const { tokens } = await authorize(stack, app, { clientId, redirectUri: REDIRECT, resource: `${stack.config.publicUrl}/v1` });
    const restOk = await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(restOk.status, 200, 'the REST resource takes its own token');
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const wrong = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${tokens.access_token}` },
      body: list,
    });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

    // Revoked in the app: the next call with the MCP token is 401.
    const keys = await (await app.get(`${app.appPath}/keys`)).text();
    const appId = /data-testid="connected-app-row" data-key-id="([^"]+)"/.exec(keys)?.[1];
    assert.ok(appId, 'the connected app is listed');
    assert.match(keys, /Desktop Test/);
    const revoked = await app.post(`${app.appPath}/keys/${appId}/revoke`, {}, `${app.appPath}/keys/${appId}/revoke`);
    assert.equal(revoked.status, 302);
    const after = await fetch(mcpUrl, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: list });
    assert.equal(after.status, 401);
    await assert.rejects(client.listTools());
  });

  it('lets a browser-based client on another origin in: the preflight is answered, the challenge and the answers are readable', async () => {
    const mcpUrl = `${stack.url}/mcp`;
    const origin = 'https://inspector.example';
    const preflight = await fetch(mcpUrl, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
    for (const header of ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id'])
      assert.ok(preflight.headers.get('access-control-allow-headers')?.split(', ').includes(header), header);
    assert.equal(preflight.headers.get('access-control-allow-credentials'), null, 'no cookie is ever taken cross-origin');

    // The 401 a browser client discovers from: its WWW-Authenticate is exposed to the page's script.
    const headers = { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const challenge = await fetch(mcpUrl, { method: 'POST', headers, body: list });
    assert.equal(challenge.status, 401);
    assert.equal(challenge.headers.get('access-control-allow-origin'), '*');
    assert.match(challenge.headers.get('access-control-expose-headers') ?? '', /\bWWW-Authenticate\b/);

    const browserClient = documents.serve('/browser/client.json', { client_name: 'Browser Test', redirect_uris: [REDIRECT] });
    const { tokens } = await authorize(stack, app, {
      clientId: browserClient,
      redirectUri: REDIRECT,
      resource: `${stack.config.publicUrl}/mcp`,
    });
    const listed = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${tokens.access_token}` },
      body: list,
    });
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get('access-control-allow-origin'), '*');
    assert.match(await listed.text(), /"name":"me"/);
  });
});
