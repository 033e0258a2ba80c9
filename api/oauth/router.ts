import type Router from '@koa/router';
import type { Context } from 'koa';
import { registerClient } from '../../activities/oauth/clients';
import { CONSENTABLE_SCOPES, type OAuthDeps, resourcesOf } from '../../activities/oauth/common';
import { DocumentFetcher } from '../../activities/oauth/document-fetcher';
import { OAuthError } from '../../activities/oauth/errors';
import {
  type AuthorizationRequest,
  approve,
  checkAuthorizationRequest,
  checkBeforeSignIn,
  mandatesOfClient,
  RedirectedError,
  redirectBack,
} from '../../activities/oauth/grants';
import { exchangeCode, refreshTokens, revokeToken } from '../../activities/oauth/tokens';
import type { Services } from '../../activities/services';
import { codeClient } from '../../lib/code-limits';
import { ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { readForm } from '../app/forms';
import { APP_CSP, errorPage, renderPage, sendPage } from '../app/layout';
import { requireLogin } from '../app/login';
import { postedForm, principalActor } from '../app/pages/common';
import { appState } from '../app/session';
import { readJsonBody } from '../http/body';
import { answerPreflight } from '../http/cors';
import { html } from '../http/html';
import { consentPage, SHOWN_MANDATES } from './consent-page';

/** Dynamic registrations one address may make per hour. */
const REGISTRATIONS_PER_HOUR = 20;
/** The token and registration requests are small: a larger body is refused unread. */
const BODY_LIMIT = 16 * 1024;

export function oauthDeps(deps: Services): OAuthDeps {
  const { oauth } = deps.config;
  const fetcher = new DocumentFetcher({
    rules: { allowedHosts: deps.config.webhooks.allowedHosts, caFile: deps.config.webhooks.caFile },
    dnsServers: oauth.dnsServers,
    concurrency: oauth.fetchConcurrency,
    onFailure: (url, reason) => deps.log.info('oauth client metadata document not fetched', { client_id: url, reason }),
  });
  return {
    db: deps.db,
    secret: deps.secret,
    issuer: deps.config.publicUrl,
    accessTtlMs: deps.config.durations.oauthAccessTokenMs,
    fetchDocument: (url) => fetcher.fetch(url),
    unusedClientTtlMs: oauth.unusedClientTtlMs,
  };
}

function publicJson(ctx: Context, body: unknown): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.body = body;
}

/** A token or revocation request's form fields: url-encoded, under the size limit, from a public client (no secret). */
async function publicClientForm(ctx: Context, what: string): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new OAuthError('invalid_request', `Send the ${what} request as application/x-www-form-urlencoded.`);
  let fields: Record<string, string>;
  try {
    fields = (await readForm(ctx, BODY_LIMIT)).fields;
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500) throw new OAuthError('invalid_request', error.message, error.status);
    throw error;
  }
  if (fields.client_secret !== undefined)
    throw new OAuthError('invalid_client', 'Only public clients are accepted: send no client_secret.', 401);
  return fields;
}

/** An OAuth endpoint answers RFC 6749 errors (`{error, error_description}`), never the /v1 error body, never a 500 for bad input. */
async function oauthEndpoint(ctx: Context, handle: () => Promise<{ status: number; body: unknown }>): Promise<void> {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cache-Control', 'no-store');
  try {
    const { status, body } = await handle();
    ctx.status = status;
    ctx.body = body;
  } catch (error) {
    if (error instanceof OAuthError) {
      ctx.status = error.status;
      ctx.body = error.body;
    } else if (error instanceof ServiceError && error.status < 500) {
      ctx.set(error.headers);
      ctx.status = error.status;
      ctx.body = { error: 'invalid_request', error_description: error.message };
    } else throw error;
  }
}

/** The query or form fields as strings (a repeated parameter is refused: RFC 6749 3.1). */
function single(fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} is repeated.`);
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/**
 * The service as its own OAuth 2.1 authorization server (issue 27): RFC 8414 and RFC 9728
 * metadata, dynamic registration (RFC 7591), the authorization endpoint with the consent page in
 * the app (the principal signs in first), and the token endpoint (code + PKCE S256, rotated refresh).
 */
export function oauthRoutes(router: Router, deps: Services, appPath: string): void {
  const od = oauthDeps(deps);
  const { publicUrl, appUrl } = deps.config;
  const resources = resourcesOf(publicUrl);

  router.get('/.well-known/oauth-authorization-server', (ctx) =>
    publicJson(ctx, {
      issuer: publicUrl,
      authorization_endpoint: `${appUrl}/oauth/authorize`,
      token_endpoint: `${publicUrl}/oauth/token`,
      registration_endpoint: `${publicUrl}/oauth/register`,
      revocation_endpoint: `${publicUrl}/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: CONSENTABLE_SCOPES,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    }),
  );
  for (const [name, resource] of [
    ['mcp', resources.mcp],
    ['v1', resources.api],
  ] as const) {
    router.get(`/.well-known/oauth-protected-resource/${name}`, (ctx) =>
      publicJson(ctx, {
        resource,
        authorization_servers: [publicUrl],
        scopes_supported: CONSENTABLE_SCOPES,
        bearer_methods_supported: ['header'],
        resource_name: name === 'mcp' ? 'Agents MCP server' : 'Agents REST API',
      }),
    );
  }

  router.post('/oauth/register', (ctx) =>
    oauthEndpoint(ctx, async () => {
      try {
        await deps.codeLimits.consumeIssue('oauth-register', 'register', codeClient(ctx.ip), REGISTRATIONS_PER_HOUR, 3600_000);
      } catch (error) {
        if (!(error instanceof ServiceError) || error.status !== 429) throw error;
        ctx.set(error.headers);
        throw new OAuthError(
          'invalid_request',
          `At most ${REGISTRATIONS_PER_HOUR} client registrations an hour from one address; wait and retry.`,
          429,
        );
      }
      let document: unknown;
      try {
        document = await readJsonBody(ctx, BODY_LIMIT, { required: true });
      } catch (error) {
        if (error instanceof ServiceError && error.status < 500)
          throw new OAuthError('invalid_client_metadata', error.message, error.status);
        throw error;
      }
      const client = await registerClient(deps.db, document);
      return {
        status: 201,
        body: {
          client_id: client.id,
          client_id_issued_at: Math.floor(Date.now() / 1000),
          client_name: client.client_name,
          redirect_uris: client.redirect_uris,
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
      };
    }),
  );

  // Browser-based clients call these across origins (no cookies are involved): the preflight is answered.
  for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
    router.options(path, (ctx) => answerPreflight(ctx, ['POST'], ['content-type', 'mcp-protocol-version']));
  }

  router.post('/oauth/token', (ctx) =>
    oauthEndpoint(ctx, async () => {
      const fields = await publicClientForm(ctx, 'token');
      if (fields.grant_type === 'authorization_code') return { status: 200, body: await exchangeCode(od, fields) };
      if (fields.grant_type === 'refresh_token') return { status: 200, body: await refreshTokens(od, fields) };
      throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    }),
  );

  router.post('/oauth/revoke', (ctx) =>
    oauthEndpoint(ctx, async () => {
      await revokeToken(od, await publicClientForm(ctx, 'revocation'));
      return { status: 200, body: {} };
    }),
  );

  /** The service's own page for a request it cannot complete: never a redirect. */
  function refused(ctx: Context, error: OAuthError): void {
    const { principal, csrf } = appState(ctx);
    const body = html`<p data-testid="oauth-refused">${t('app.oauth.refused', { description: error.description })}</p><p>${t('app.oauth.nothing_shared')}</p>`;
    sendPage(
      ctx,
      principal
        ? renderPage({ title: t('app.oauth.title'), appPath, principal, csrf, flags: deps.config.flags.values, body })
        : renderPage({ title: t('app.oauth.title'), appPath, body }),
      error.status === 503 ? 503 : 400,
    );
  }

  /**
   * The request checked, the principal signed in: a refusal that may go back to the client (its
   * client and redirect URI validated) is redirected, any other shown as a page.
   */
  async function checked(ctx: Context, params: Record<string, string>): Promise<AuthorizationRequest | undefined> {
    try {
      return await checkAuthorizationRequest(od, params);
    } catch (error) {
      if (error instanceof RedirectedError) {
        ctx.redirect(redirectBack(publicUrl, error.redirectUri, error.state, error.body));
        return undefined;
      }
      if (!(error instanceof OAuthError)) throw error;
      refused(ctx, error);
      return undefined;
    }
  }

  /** The consent page may send the browser on to the client's redirect URI after its form post. */
  function allowRedirect(ctx: Context, redirectUri: string): void {
    const url = new URL(redirectUri);
    const target = url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol;
    ctx.set('Content-Security-Policy', APP_CSP.replace("form-action 'self'", `form-action 'self' ${target}`));
  }

  router.get(`${appPath}/oauth/authorize`, async (ctx) => {
    let params: Record<string, string>;
    try {
      params = single(ctx.query);
    } catch (error) {
      ctx.status = 400;
      ctx.body = (error as OAuthError).body;
      return;
    }
    // A stranger (no session) gets nothing outbound and no redirect to the client: what this
    // database can tell is checked, then the principal signs in and comes back here (issue 37).
    if (!appState(ctx).principal) {
      try {
        await checkBeforeSignIn(od, params);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        return refused(ctx, error);
      }
      requireLogin(ctx, appPath);
      return;
    }
    const request = await checked(ctx, params);
    if (!request) return;
    const { principal, csrf } = appState(ctx);
    const mandates = await mandatesOfClient(deps.db, principal!.id, request.client.id);
    sendPage(
      ctx,
      renderPage({
        title: t('app.oauth.title'),
        appPath,
        principal: principal!,
        csrf,
        flags: deps.config.flags.values,
        body: consentPage(appPath, csrf!, request, params, mandates),
      }),
    );
    allowRedirect(ctx, request.redirectUri);
  });

  router.post(`${appPath}/oauth/authorize`, async (ctx) => {
    if (!requireLogin(ctx, appPath)) return;
    const principal = appState(ctx).principal!;
    let fields: Record<string, string>;
    try {
      fields = (await postedForm(ctx, deps)).fields;
    } catch (error) {
      return errorPage(ctx, error, {
        appPath,
        title: t('app.oauth.title'),
        principal,
        csrf: appState(ctx).csrf,
        flags: deps.config.flags.values,
      });
    }
    const request = await checked(ctx, fields);
    if (!request) return;
    if (fields.decision !== 'approve') {
      ctx.redirect(
        redirectBack(publicUrl, request.redirectUri, request.state, {
          error: 'access_denied',
          error_description: 'The principal denied the request.',
        }),
      );
      return;
    }
    try {
      const shown = (fields[SHOWN_MANDATES] ?? '').split(' ').filter(Boolean);
      const code = await approve(od, principal, request, principalActor(ctx, principal), shown);
      ctx.redirect(redirectBack(publicUrl, request.redirectUri, request.state, { code }));
    } catch (error) {
      if (!(error instanceof RedirectedError)) throw error;
      ctx.redirect(redirectBack(publicUrl, error.redirectUri, error.state, error.body));
    }
  });
}
