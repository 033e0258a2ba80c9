import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { createAccount } from '../../test/factories';
import { authorize, DocumentServer, discover, insecure, oauthStack, signedIn } from '../../test/oauth';
import type { Stack } from '../../test/stack';

const REDIRECT = 'http://127.0.0.1:9/cb';

/**
 * The app at the root of the API's own host (`SVC_APP_URL` = `SVC_PUBLIC_URL`): the consent page is
 * `/oauth/authorize` beside the API's `/oauth/token` and `/oauth/register`, and the whole flow works.
 */
describe('OAuth with the app at the root of the service host', () => {
  let stack: Stack;
  let documents: DocumentServer;

  before(async () => {
    documents = await new DocumentServer().start();
    stack = await oauthStack(documents, { appAtRoot: true });
  });

  after(async () => {
    await stack?.close();
    await documents?.close();
  });

  it('registers, consents at /oauth/authorize, exchanges the code and calls the API and MCP with the tokens', async () => {
    assert.equal(stack.config.appUrl, stack.config.publicUrl);
    const as = await discover(stack);
    assert.equal(as.authorization_endpoint, `${stack.config.publicUrl}/oauth/authorize`);
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Root Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        insecure,
      ),
    );
    // The token endpoint is the API's, not an app page: a bad grant is an RFC 6749 error in JSON.
    const bad = await fetch(`${stack.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'nope',
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_verifier: oauth.generateRandomCodeVerifier(),
      }).toString(),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: string }).error, 'invalid_grant');

    const account = await createAccount(stack.deps.db, { name: 'Rita Root' });
    const app = await signedIn(stack, account.email);
    assert.equal(app.appPath, '');
    for (const resource of [`${stack.config.publicUrl}/v1`, `${stack.config.publicUrl}/mcp`]) {
      const { tokens } = await authorize(stack, app, { clientId: client.client_id, redirectUri: REDIRECT, resource });
      if (resource.endsWith('/v1')) {
        const me = await fetch(`${stack.url}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        assert.equal(me.status, 200, await me.text());
      } else {
        const listed = await fetch(`${stack.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tokens.access_token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        assert.equal(listed.status, 200, await listed.clone().text());
        assert.match(await listed.text(), /"request_sign"/);
      }
    }
  });
});
