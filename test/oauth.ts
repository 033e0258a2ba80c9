import https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { freePort } from './ports';
import { AppClient } from './principal';
import { selfSignedCertificate } from './receiver';
import { type Stack, startStack } from './stack';

/** An https server on loopback serving Client ID Metadata Documents (what a client publishes at its client_id URL). */
export class DocumentServer {
  readonly documents = new Map<string, string>();
  /** The paths asked for, in order (whether the service fetched a document at all). */
  readonly requests: string[] = [];
  private server?: https.Server;
  readonly tls = selfSignedCertificate();

  async start(): Promise<this> {
    this.server = https.createServer({ key: this.tls.key, cert: this.tls.cert }, (request, response) => {
      this.requests.push(request.url ?? '');
      const body = this.documents.get(request.url ?? '');
      if (body === undefined) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `https://127.0.0.1:${(this.server!.address() as AddressInfo).port}${path}`;
  }

  /** Serves a document at `path` whose client_id is its own URL (unless given), and returns that URL. */
  serve(path: string, metadata: Record<string, unknown>): string {
    const url = this.url(path);
    this.documents.set(path, JSON.stringify({ client_id: url, ...metadata }));
    return url;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * A stack whose public URL is the address it listens on (so a client connects to the resource its
 * metadata names), trusting the document server's certificate and letting it resolve to loopback
 * as development does (SVC_WEBHOOK_ALLOWED_HOSTS), unless `allowLoopback` is false; with `appAtRoot`
 * the app sits at the root of the same host.
 */
export async function oauthStack(
  documents: DocumentServer,
  options: { allowLoopback?: boolean; appAtRoot?: boolean } = {},
): Promise<Stack> {
  const port = await freePort();
  return startStack({
    port,
    env: {
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...(options.appAtRoot ? { SVC_APP_URL: `http://127.0.0.1:${port}` } : {}),
      SVC_WEBHOOK_CA_FILE: documents.tls.caFile,
      ...(options.allowLoopback === false ? {} : { SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }),
    },
  });
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decodeEntities = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);

/** The consent form's hidden fields, as a browser would post them. */
export function consentFields(page: string): Record<string, string> {
  const form = /<form method="post" action="[^"]*\/oauth\/authorize"[\s\S]*?<\/form>/.exec(page)?.[0] ?? '';
  const fields: Record<string, string> = {};
  for (const input of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[input[1]] = decodeEntities(input[2]);
  return fields;
}

/**
 * The principal opens the authorization URL in the app (signed in first), sees the consent page and
 * answers it by its form post; returns the page and where the service sent the browser.
 */
export async function consent(
  app: AppClient,
  authorizationUrl: URL | string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ page: string; location: string }> {
  const url = new URL(authorizationUrl);
  const opened = await app.get(`${url.pathname}${url.search}`);
  const page = await opened.text();
  if (opened.status !== 200) throw new Error(`consent page: ${opened.status} ${opened.headers.get('location') ?? page.slice(0, 300)}`);
  const posted = await app.post(url.pathname, { ...consentFields(page), decision });
  const location = posted.headers.get('location');
  if (posted.status !== 302 || !location) throw new Error(`consent: ${posted.status} ${await posted.text()}`);
  return { page, location };
}

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(stack: Stack): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(stack.config.publicUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}

/** An authorization request's path and query in the app (PKCE S256 with a fresh verifier), where a client sends the browser. */
export async function authorizationPath(
  stack: Stack,
  options: { clientId: string; redirectUri: string; resource: string; state: string },
): Promise<string> {
  const params = new URLSearchParams({
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    response_type: 'code',
    code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    code_challenge_method: 'S256',
    resource: options.resource,
    state: options.state,
  });
  return `${new URL(stack.config.appUrl).pathname.replace(/\/$/, '')}/oauth/authorize?${params}`;
}

export interface Authorized {
  tokens: oauth.TokenEndpointResponse;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
}

/** The whole authorization code flow with PKCE for `resource`, consented in the app by `app`'s principal. */
export async function authorize(
  stack: Stack,
  app: AppClient,
  options: { clientId: string; redirectUri: string; resource: string; scope?: string },
): Promise<Authorized> {
  const as = await discover(stack);
  const client: oauth.Client = { client_id: options.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    response_type: 'code',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: options.resource,
    state,
    ...(options.scope ? { scope: options.scope } : {}),
  }).toString();
  const { location } = await consent(app, url);
  const params = oauth.validateAuthResponse(as, client, new URL(location), state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, options.redirectUri, verifier, {
    additionalParameters: { resource: options.resource },
    ...insecure,
  });
  return { tokens: await oauth.processAuthorizationCodeResponse(as, client, response), as, client };
}

export async function signedIn(stack: Stack, email: string): Promise<AppClient> {
  return new AppClient(stack, email).login();
}
