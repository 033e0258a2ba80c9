import type Router from '@koa/router';
import type { Context } from 'koa';
import { mandateStatus } from '../../../activities/mandates/mandates';
import { resolveStopLink, stopAgent } from '../../../activities/mandates/stop';
import type { Services } from '../../../activities/services';
import { errors } from '../../../lib/errors';
import { html, type SafeHtml } from '../../http/html';
import { actorFrom } from '../../http/request';
import { readForm } from '../forms';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { appState, checkOrigin } from '../session';
import { type Notice, noticeFrom, refusal, when } from './common';
import { LEVEL_WORDS } from './mandates';

const TITLE = 'Stop this agent';

const NOTICES = {
  mandate: 'Stopped: the mandate is revoked. Its key can no longer sign for you with it, from this moment.',
  key: 'Stopped: the API key is revoked, and every mandate it held with it. It answers 401 from this moment.',
};

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
      ? renderPage({ title: TITLE, appPath, principal, flags, csrf, body, notice })
      : renderPage({ title: TITLE, appPath, body, notice });
    sendPage(ctx, page, status);
  }

  async function show(ctx: Context, notice?: Notice, status = 200): Promise<void> {
    const { mandate, key, principal } = await resolveStopLink(deps, ctx.params.token);
    const state = mandateStatus(mandate);
    const action = `${appPath}/stop/${ctx.params.token}`;
    const { csrf } = appState(ctx);
    const facts = html`<dl class="facts" data-testid="stop">
<dt>For</dt><dd>${principal.name} (${principal.email})</dd>
<dt>Mandate</dt><dd>${mandate.name} <code>${mandate.id}</code>, ${mandate.confirmation_level}: ${LEVEL_WORDS[mandate.confirmation_level]}</dd>
<dt>Its status</dt><dd><span class="badge ${state}" data-testid="stop-mandate-status">${state}</span>${mandate.revoked_at && html` ${when(mandate.revoked_at)}`}</dd>
<dt>API key</dt><dd>${key.label} <code>${key.prefix}…</code></dd>
<dt>The key</dt><dd>${key.revoked_at ? html`<span class="badge revoked" data-testid="stop-key-status">revoked</span> ${when(key.revoked_at)}` : html`<span class="badge active" data-testid="stop-key-status">active</span>`}</dd></dl>`;
    if (state === 'expired') {
      const ended = html`<p data-testid="stop-expired">This link expired with its mandate ${when(mandate.expires_at)}: the mandate signs nothing any more. To revoke the key as well, sign in to the app.</p>`;
      send(ctx, html`${facts}${ended}`, notice, 410);
      return;
    }
    const live = state === 'active' || state === 'pending';
    const forms = html`${
      live &&
      html`<form method="post" action="${action}" class="card stack">${hiddenCsrf(csrf)}<input type="hidden" name="what" value="mandate">
<p>Revoke this mandate: its key can no longer sign for you with it. Open confirmation requests under it can no longer be applied.</p>
<div><button type="submit" class="danger" data-testid="stop-mandate">Revoke this mandate</button></div></form>`
    }${
      !key.revoked_at &&
      html`<form method="post" action="${action}" class="card stack">${hiddenCsrf(csrf)}<input type="hidden" name="what" value="key">
<p>Revoke the API key “${key.label}”: it answers 401 from then on, every mandate it holds is revoked with it, and offers it made can no longer be accepted.</p>
<div><button type="submit" class="danger" data-testid="stop-key">Revoke the key and all its mandates</button></div></form>`
    }`;
    const closing =
      live || !key.revoked_at
        ? html`<p class="hint">Documents already completed stay signed: stopping does not undo them. Nothing happens until you press a button.</p>`
        : html`<p data-testid="stop-done">Nothing is left to stop: the mandate and the key are revoked.</p>`;
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
        send(
          ctx,
          html`<p>This stop link is not valid. To stop an agent, sign in and revoke its mandate or key in the app.</p>`,
          undefined,
          404,
        );
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
      await show(ctx, noticeFrom(ctx, NOTICES));
    }),
  );

  router.post(
    base,
    handle(async (ctx) => {
      if (!checkOrigin(ctx, deps)) throw errors.invalidRequest('This form did not come from this app. Open the stop link again and retry.');
      const { fields } = await readForm(ctx, 4096);
      const what = fields.what === 'key' ? 'key' : fields.what === 'mandate' ? 'mandate' : undefined;
      if (!what) throw errors.invalidRequest('Choose what to stop: the mandate or the key.', [{ path: 'what', message: 'mandate or key' }]);
      const { principal } = await resolveStopLink(deps, ctx.params.token);
      await stopAgent(deps, ctx.params.token, what, actorFrom(ctx, { type: 'principal', id: principal.id }));
      ctx.redirect(`${appPath}/stop/${ctx.params.token}?done=${what}`);
    }),
  );
}
