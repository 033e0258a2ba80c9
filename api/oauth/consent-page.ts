import type { AuthorizationRequest } from '../../activities/oauth/grants';
import type { Mandate } from '../../db/models';
import { t } from '../../lib/i18n';
import { hiddenCsrf } from '../app/layout';
import { tHtml } from '../app/messages';
import { nameWord, when } from '../app/pages/common';
import { LEVEL_WORDS, MODE_WORDS } from '../app/pages/mandates';
import { html, joinHtml } from '../http/html';

// The consent page of the authorization endpoint (router.ts): what it states, and the fields its form carries back.

/** The authorization request's parameters, as the consent form carries them back. */
export const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'scope',
];

/** The hidden field naming the mandates the consent page showed (ids, space-separated). */
export const SHOWN_MANDATES = 'mandates_shown';

/** Where the consent sends the browser back: a loopback redirect is a program on this computer, on that port. */
function destination(redirectUri: string) {
  const url = new URL(redirectUri);
  if (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
    return html`<code data-testid="redirect-host">${url.host}</code> ${tHtml('app.oauth.loopback', { port: html`<strong data-testid="redirect-port">${url.port || '80'}</strong>` })}`;
  return html`<code data-testid="redirect-host">${url.host || url.protocol}</code>`;
}

/** The app's mandates in force, as the consent page must state them; or that it cannot sign. */
function signingLine(appPath: string, mandates: Mandate[]) {
  if (mandates.length === 0)
    return html`<p class="hint" data-testid="consent-no-mandate">${tHtml('app.oauth.no_mandate', { scope: html`<code>documents:sign</code>` })}</p>`;
  const items = mandates.map(
    (mandate) =>
      html`<li data-testid="consent-mandate" data-mandate-id="${mandate.id}">${tHtml('app.oauth.mandate', {
        level: html`<strong>${nameWord('level', mandate.confirmation_level)}</strong>`,
        words: LEVEL_WORDS[mandate.confirmation_level],
        covers: MODE_WORDS[mandate.mode],
        at: when(mandate.confirmed_at),
        link: html`<a href="${appPath}/mandates/${mandate.id}/revoke" class="danger-link" data-testid="consent-mandate-revoke">${t('app.oauth.revoke_it')}</a>`,
      })}</li>`,
  );
  const count = mandates.length;
  return html`<div class="notice error" data-testid="consent-signing"><p>${tHtml('app.oauth.can_sign', { can: html`<strong>${t('app.oauth.can_sign_strong')}</strong>`, count })}</p><ul>${joinHtml(items, '')}</ul>
<p>${tHtml('app.oauth.gives_sign', { scope: html`<code>documents:sign</code>`, count })}</p></div>`;
}

/** The consent page's body: who asks, where it sends the principal back, what for, and whether it can sign. */
export function consentPage(
  appPath: string,
  csrf: string,
  request: AuthorizationRequest,
  params: Record<string, string>,
  mandates: Mandate[],
) {
  const hidden = [
    ...PARAMS.filter((name) => params[name] !== undefined).map(
      (name) => html`<input type="hidden" name="${name}" value="${params[name]}">`,
    ),
    ...(mandates.length
      ? [html`<input type="hidden" name="${SHOWN_MANDATES}" value="${mandates.map((mandate) => mandate.id).join(' ')}">`]
      : []),
  ];
  const scopes = joinHtml(
    request.scopes.map((scope) => html`<li><code class="scope">${scope}</code></li>`),
    '',
  );
  return html`<section class="card" data-testid="consent">
<p>${tHtml('app.oauth.asks', { client: html`<strong data-testid="client-name">${request.client.client_name}</strong>` })}</p>
<dl class="facts"><dt>${t('app.oauth.client')}</dt><dd><code data-testid="client-id">${request.client.id}</code></dd>
<dt>${t('app.oauth.sends_back')}</dt><dd>${destination(request.redirectUri)}</dd>
<dt>${t('app.oauth.for')}</dt><dd><code>${request.resource}</code></dd></dl>
<p>${t('app.oauth.asks_for')}</p><ul data-testid="consent-scopes">${scopes}</ul>
${signingLine(appPath, mandates)}
<form method="post" action="${appPath}/oauth/authorize" class="actions">${hiddenCsrf(csrf)}${hidden}
<button type="submit" name="decision" value="approve" class="primary" data-testid="consent-approve">${t('app.oauth.allow')}</button>
<button type="submit" name="decision" value="deny" data-testid="consent-deny">${t('app.oauth.deny')}</button></form></section>`;
}
