import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../activities/services';
import {
  beginConfirm,
  declineRequest,
  principalsSignRequest,
  reopenConfirm,
  requestVersion,
  settledDecision,
} from '../../activities/signing/decisions';
import { signRequestIdFromToken } from '../../activities/signing/signing';
import { ApiKey, DocumentSigner, Mandate, Offer } from '../../db/models';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { Widget } from '../../lib/pdf/widgets';
import { bestEffort } from '../../lib/temporal';
import { html } from '../http/html';
import { sendPdf } from './files';
import { hiddenCsrf, renderPage, sendPage } from './layout';
import { tHtml } from './messages';
import { catalogueWords, pageHandler, postedForm, principalActor } from './pages/common';
import { appState } from './session';

const WORDS: Readonly<Record<string, string>> = catalogueWords({
  open: 'app.sign_request.status.open',
  confirming: 'app.sign_request.status.confirming',
  applied: 'app.sign_request.status.applied',
  declined: 'app.sign_request.status.declined',
  expired: 'app.sign_request.status.expired',
  failed: 'app.sign_request.status.failed',
});

/**
 * The L1 confirm page. The link names the request; only the principal it belongs to, signed in,
 * sees it or decides. An agent holding confirm_url gets the sign-in page and nothing else.
 */
export function signRequestRoutes(router: Router, deps: Services, appPath: string): void {
  const base = `${appPath}/sign-request/:token`;

  async function load(ctx: Context) {
    const id = signRequestIdFromToken(deps.secret, ctx.params.token);
    if (!id) throw errors.notFound(t('app.sign_request.invalid_link'));
    return principalsSignRequest(deps.db, appState(ctx).principal!, id);
  }

  async function render(ctx: Context, notice?: { kind: 'ok' | 'error'; text: string }, status = 200) {
    const { principal, csrf } = appState(ctx);
    const { request, document } = await load(ctx);
    const [mandate, key, offer, signer] = await Promise.all([
      Mandate.query(deps.db).findById(request.mandate_id),
      ApiKey.query(deps.db).findById(request.api_key_id),
      request.offer_id ? Offer.query(deps.db).findById(request.offer_id) : undefined,
      DocumentSigner.query(deps.db).findById(request.signer_id),
    ]);
    const link = `${appPath}/sign-request/${ctx.params.token}`;
    const open = request.isOpenAt();
    const noAppearance = !principal!.signature_sha256;
    const body = html`<dl class="facts" data-testid="sign-request">
<dt>${t('app.sign_request.document')}</dt><dd>${document.name} <a href="${link}/document.pdf" target="_blank" rel="noopener">${t('app.sign_request.view_pdf')}</a></dd>
<dt>${t('app.sign_request.asked_by')}</dt><dd>${t('app.sign_request.asked_by_key', { label: key!.label, prefix: key!.prefix })}</dd>
<dt>${t('app.sign_request.reason')}</dt><dd>${request.reason}</dd>
${offer && html`<dt>${t('app.sign_request.offer')}</dt><dd data-testid="offer">${tHtml('app.sign_request.offer_terms', { from: offer.from_email, hash: html`<code>${offer.pre_sign_hash}</code>`, terms: offer.terms })}</dd>`}
<dt>${t('app.sign_request.mandate')}</dt><dd>${t('app.sign_request.mandate_is', { name: mandate!.name, id: mandate!.id, level: mandate!.confirmation_level })}</dd>
<dt>${t('app.sign_request.expires')}</dt><dd>${request.expires_at.toISOString()}</dd>
<dt>${t('app.sign_request.status')}</dt><dd data-testid="sign-request-status">${
      request.error_message
        ? t('app.sign_request.status_error', { status: WORDS[request.status] ?? request.status, error: request.error_message })
        : (WORDS[request.status] ?? request.status)
    }</dd></dl>
${preview(
  link,
  document.widgets.filter((widget) => widget.role === signer?.role),
)}
${
  open &&
  html`${noAppearance && html`<p class="notice error">${tHtml('app.sign_request.no_signature', { link: html`<a href="${appPath}/signature">${t('app.sign_request.no_signature_link')}</a>` })}</p>`}
<p>${t('app.sign_request.confirming')}</p>
<div class="actions"><form method="post" action="${link}/confirm">${hiddenCsrf(csrf)}<input type="hidden" name="version" value="${requestVersion(request)}"><button type="submit" data-testid="confirm" ${noAppearance && html`disabled`}>${t('app.sign_request.confirm')}</button></form>
<form method="post" action="${link}/decline">${hiddenCsrf(csrf)}<button type="submit" class="secondary" data-testid="decline">${t('app.sign_request.decline')}</button></form></div>`
}`;
    sendPage(
      ctx,
      renderPage({
        title: t('app.sign_request.title'),
        appPath,
        principal: principal!,
        csrf,
        flags: deps.config.flags.values,
        body,
        notice,
        scripts: ['/static/sign-request-preview.js'],
      }),
      status,
    );
  }

  /**
   * Where the signature lands: the page(s) of the principal's signature fields (of all their fields
   * when they have none), named in words (without script too) and drawn with their fields marked by
   * sign-request-preview.js. Initials on every page of a long contract do not draw every page.
   */
  function preview(link: string, widgets: Widget[]) {
    const signatures = widgets.filter((widget) => widget.type === 'signature');
    const pages = [...new Set((signatures.length ? signatures : widgets).map((widget) => widget.page))].sort((a, b) => a - b).slice(0, 5);
    if (!pages.length) return '';
    const fields = widgets
      .filter((widget) => pages.includes(widget.page))
      .map(({ page, x, y, width, height, type }) => ({ page, x, y, width, height, type }));
    return html`<section aria-labelledby="preview-title"><h2 id="preview-title">${t('app.sign_request.preview_title')}</h2>
<p data-testid="preview-pages">${t('app.sign_request.preview_pages', { count: pages.length, pages: pages.join(', ') })}</p>
<div class="l1-preview" data-testid="l1-preview" data-pdf="${link}/document.pdf" data-fields="${JSON.stringify(fields)}"><p class="hint" data-preview-status>${t('app.sign_request.preview_drawing')}</p></div></section>`;
  }

  const guarded = (handler: (ctx: Context) => Promise<void>) => pageHandler(appPath, 'app.sign_request.title', ({ ctx }) => handler(ctx));

  router.get(
    base,
    guarded((ctx) => render(ctx)),
  );

  router.get(
    `${base}/document.pdf`,
    guarded(async (ctx) => {
      const { document } = await load(ctx);
      sendPdf(ctx, await deps.blobs.get(document.current_sha256), `${document.name}.pdf`, document.current_sha256, 'inline');
    }),
  );

  router.post(
    `${base}/confirm`,
    guarded(async (ctx) => {
      const { fields } = await postedForm(ctx, deps);
      const { request } = await load(ctx);
      const actor = principalActor(ctx, appState(ctx).principal!);
      try {
        await beginConfirm(deps.db, appState(ctx).principal!, request.id, actor, fields.version);
      } catch (error) {
        // What changed is shown at once: the page as it is now, with the refusal above it.
        if (!(error instanceof ServiceError) || error.code !== 'invalid_state') throw error;
        await render(ctx, { kind: 'error', text: error.message }, error.status);
        return;
      }
      try {
        await deps.workflows.decideSignRequest(request.id, 'confirm');
      } catch {
        await reopenConfirm(deps.db, request.id);
        throw errors.serviceUnavailable(t('app.sign_request.handover_failed'));
      }
      const current = await settledDecision(deps, request.id, deps.config.durations.applyWaitMs);
      await render(
        ctx,
        current.status === 'failed'
          ? { kind: 'error', text: current.error_message ?? t('app.sign_request.apply_failed') }
          : { kind: 'ok', text: WORDS[current.status] ?? current.status },
      );
    }),
  );

  router.post(
    `${base}/decline`,
    guarded(async (ctx) => {
      await postedForm(ctx, deps);
      const { request } = await load(ctx);
      const actor = principalActor(ctx, appState(ctx).principal!);
      await declineRequest(deps.db, appState(ctx).principal!, request.id, actor);
      // The decline is recorded; the wake-up is best effort (the workflow also reads it at expiry).
      await bestEffort(deps.workflows, `decline signal to ${request.id}`, () => deps.workflows.decideSignRequest(request.id, 'decline'));
      await render(ctx, { kind: 'ok', text: WORDS.declined });
    }),
  );
}
