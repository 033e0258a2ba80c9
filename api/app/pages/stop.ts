import type Router from '@koa/router';
import type { Context } from 'koa';
import { resolveStopLink, stopAgent } from '../../../activities/accounts/stop';
import { mandateStatus } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import { errors } from '../../../lib/errors';
import { hasMessage, t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { actorFrom } from '../../http/request';
import { readForm } from '../forms';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { appState, checkOrigin } from '../session';
import { type Notice, noticeFrom, refusal, when } from './common';
import { LEVEL_WORDS } from './mandates';

/** The notices after a stop, in the request's locale. */
const notices = () => ({ mandate: t('sign.stop.notice.mandate'), key: t('sign.stop.notice.key') });

/** A status word (a mandate's or a key's), from the catalogue. */
function statusWord(state: string): string {
  const key = `sign.stop.status.${state}`;
  return hasMessage(key) ? t(key) : state;
}

/**
 * The page behind "Stop this agent" in every mail that reports an agent's action (L2 notices, L1
 * requests, offer escalations, mandate grants). No sign-in: the link in the principal's mailbox is
 * the capability, so the stop works while the app is out of reach. Opening it changes nothing (link
 * scanners fetch links); the stop is a POST from this page, checked by its Origin.
 */
export function stopRoutes(router: Router, deps: Services, appPath: string): void {
  const flags = deps.config.flags.values;
  const base = `${appPath}/stop/:token`;

  function send(ctx: Context, body: SafeHtml, notice: Notice, status = 200): void {
    const { principal, csrf } = appState(ctx);
    const page = principal
      ? renderPage({ title: t('sign.stop.title'), appPath, principal, flags, csrf, body, notice })
      : renderPage({ title: t('sign.stop.title'), appPath, body, notice });
    sendPage(ctx, page, status);
  }

  async function show(ctx: Context, notice?: Notice, status = 200): Promise<void> {
    const { mandate, key, principal } = await resolveStopLink(deps, ctx.params.token);
    const state = mandateStatus(mandate);
    const action = `${appPath}/stop/${ctx.params.token}`;
    const { csrf } = appState(ctx);
    const facts = html`<dl class="facts" data-testid="stop">
<dt>${t('sign.stop.facts.for')}</dt><dd>${principal.name} (${principal.email})</dd>
<dt>${t('sign.stop.facts.mandate')}</dt><dd>${tHtml('sign.stop.mandate', { name: mandate.name, id: html`<code>${mandate.id}</code>`, level: mandate.confirmation_level, words: LEVEL_WORDS[mandate.confirmation_level] })}</dd>
<dt>${t('sign.stop.facts.mandate_status')}</dt><dd><span class="badge ${state}" data-testid="stop-mandate-status">${statusWord(state)}</span>${mandate.revoked_at && html` ${when(mandate.revoked_at)}`}</dd>
<dt>${t('sign.stop.facts.api_key')}</dt><dd>${key.label} <code>${key.prefix}…</code></dd>
<dt>${t('sign.stop.facts.key_status')}</dt><dd>${key.revoked_at ? html`<span class="badge revoked" data-testid="stop-key-status">${statusWord('revoked')}</span> ${when(key.revoked_at)}` : html`<span class="badge active" data-testid="stop-key-status">${statusWord('active')}</span>`}</dd></dl>`;
    if (state === 'expired') {
      const ended = html`<p data-testid="stop-expired">${tHtml('sign.stop.expired', { at: when(mandate.expires_at) })}</p>`;
      send(ctx, html`${facts}${ended}`, notice, 410);
      return;
    }
    const live = state === 'active' || state === 'pending';
    const forms = html`${
      live &&
      html`<form method="post" action="${action}" class="card stack">${hiddenCsrf(csrf)}<input type="hidden" name="what" value="mandate">
<p>${t('sign.stop.revoke_mandate.text')}</p>
<div><button type="submit" class="danger" data-testid="stop-mandate">${t('sign.stop.revoke_mandate.button')}</button></div></form>`
    }${
      !key.revoked_at &&
      html`<form method="post" action="${action}" class="card stack">${hiddenCsrf(csrf)}<input type="hidden" name="what" value="key">
<p>${t('sign.stop.revoke_key.text', { label: key.label })}</p>
<div><button type="submit" class="danger" data-testid="stop-key">${t('sign.stop.revoke_key.button')}</button></div></form>`
    }`;
    const closing =
      live || !key.revoked_at
        ? html`<p class="hint">${t('sign.stop.hint')}</p>`
        : html`<p data-testid="stop-done">${t('sign.stop.done')}</p>`;
    send(ctx, html`${facts}${forms}${closing}`, notice, status);
  }

  /** The token stays out of Referer headers; a refusal is this page with its status (a forged link a plain 404 page). */
  const handle = (action: (ctx: Context) => Promise<void>) => async (ctx: Context) => {
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Robots-Tag', 'noindex');
    try {
      await action(ctx);
    } catch (error) {
      const refused = refusal(error);
      ctx.set(refused.headers);
      if (refused.code === 'not_found') {
        send(ctx, html`<p>${t('sign.stop.invalid')}</p>`, undefined, 404);
        return;
      }
      await show(ctx, { kind: 'error', text: refused.message }, refused.status).catch(() =>
        send(ctx, html`<p>${refused.message}</p>`, { kind: 'error', text: refused.message }, refused.status),
      );
    }
  };

  router.get(
    base,
    handle(async (ctx) => {
      await show(ctx, noticeFrom(ctx, notices()));
    }),
  );

  router.post(
    base,
    handle(async (ctx) => {
      if (!checkOrigin(ctx, deps)) throw errors.invalidRequest(t('sign.stop.error.foreign_form'));
      const { fields } = await readForm(ctx, 4096);
      const what = fields.what === 'key' ? 'key' : fields.what === 'mandate' ? 'mandate' : undefined;
      if (!what) throw errors.invalidRequest(t('sign.stop.error.choose'), [{ path: 'what', message: 'mandate or key' }]);
      const { principal } = await resolveStopLink(deps, ctx.params.token);
      await stopAgent(deps, ctx.params.token, what, actorFrom(ctx, { type: 'principal', id: principal.id }));
      ctx.redirect(`${appPath}/stop/${ctx.params.token}?done=${what}`);
    }),
  );
}
