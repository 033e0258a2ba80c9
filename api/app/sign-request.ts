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
import type { Widget } from '../../lib/pdf/widgets';
import { bestEffort } from '../../lib/temporal';
import { html } from '../http/html';
import { sendPdf } from './files';
import { hiddenCsrf, renderPage, sendPage } from './layout';
import { pageHandler, postedForm, principalActor } from './pages/common';
import { appState } from './session';

const WORDS: Record<string, string> = {
  open: 'Waiting for your decision',
  confirming: 'Confirmed: your signature is being applied',
  applied: 'Signed: your signature was applied',
  declined: 'Declined: the document was not signed',
  expired: 'Expired: the document was not signed',
  failed: 'Confirmed, but the signature could not be applied',
};

/**
 * The L1 confirm page. The link names the request; only the principal it belongs to, signed in,
 * sees it or decides. An agent holding confirm_url gets the sign-in page and nothing else.
 */
export function signRequestRoutes(router: Router, deps: Services, appPath: string): void {
  const base = `${appPath}/sign-request/:token`;

  async function load(ctx: Context) {
    const id = signRequestIdFromToken(deps.secret, ctx.params.token);
    if (!id) throw errors.notFound('This confirm link is not valid.');
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
<dt>Document</dt><dd>${document.name} <a href="${link}/document.pdf" target="_blank" rel="noopener">View the PDF</a></dd>
<dt>Asked by</dt><dd>Your API key “${key!.label}” (${key!.prefix}…)</dd>
<dt>Its reason</dt><dd>${request.reason}</dd>
${offer && html`<dt>Offer</dt><dd data-testid="offer">From ${offer.from_email}, on the document’s PDF with SHA-256 <code>${offer.pre_sign_hash}</code>; terms: ${offer.terms}</dd>`}
<dt>Mandate</dt><dd>${mandate!.name} (${mandate!.id}, ${mandate!.confirmation_level})</dd>
<dt>Expires</dt><dd>${request.expires_at.toISOString()}</dd>
<dt>Status</dt><dd data-testid="sign-request-status">${WORDS[request.status] ?? request.status}${request.error_message && `: ${request.error_message}`}</dd></dl>
${preview(
  link,
  document.widgets.filter((widget) => widget.role === signer?.role),
)}
${
  open &&
  html`${noAppearance && html`<p class="notice error">Add your signature first: <a href="${appPath}/signature">store your signature</a>.</p>`}
<p>Confirming applies your stored signature to this document now, as you, with the line “Signer (via authorized agent)” and this mandate on its certificate.</p>
<div class="actions"><form method="post" action="${link}/confirm">${hiddenCsrf(csrf)}<input type="hidden" name="version" value="${requestVersion(request)}"><button type="submit" data-testid="confirm" ${noAppearance && html`disabled`}>Confirm and sign</button></form>
<form method="post" action="${link}/decline">${hiddenCsrf(csrf)}<button type="submit" class="secondary" data-testid="decline">Decline</button></form></div>`
}`;
    sendPage(
      ctx,
      renderPage({
        title: 'Confirm a signature',
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
    return html`<section aria-labelledby="preview-title"><h2 id="preview-title">Where your signature goes</h2>
<p data-testid="preview-pages">Your signature goes on page${pages.length > 1 ? 's' : ''} ${pages.join(', ')} of the document; the fields filled for you there are marked below.</p>
<div class="l1-preview" data-testid="l1-preview" data-pdf="${link}/document.pdf" data-fields="${JSON.stringify(fields)}"><p class="hint" data-preview-status>Drawing the page…</p></div></section>`;
  }

  const guarded = (handler: (ctx: Context) => Promise<void>) => pageHandler(appPath, 'Confirm a signature', ({ ctx }) => handler(ctx));

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
        throw errors.serviceUnavailable('The confirmation could not be handed over; try again in a moment.');
      }
      const current = await settledDecision(deps, request.id, deps.config.durations.applyWaitMs);
      await render(
        ctx,
        current.status === 'failed'
          ? { kind: 'error', text: current.error_message ?? 'The signature could not be applied.' }
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
