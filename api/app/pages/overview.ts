import type Router from '@koa/router';
import { isBusinessPlus, keysOfPrincipal } from '../../../activities/accounts/accounts';
import { documentsOfPrincipal, waitingForPrincipal } from '../../../activities/documents/principal-documents';
import { mandateStatus, mandatesOfPrincipal } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import { confirmUrl } from '../../../activities/signing/signing';
import { type ApiKey, Document, SignRequest, Tenant } from '../../../db/models';
import { t } from '../../../lib/i18n';
import { html } from '../../http/html';
import { renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { nameWord, pageHandler, when } from './common';

/** The principal's overview: signature, keys, mandates, sign requests waiting for them, plan. */
export function overviewRoutes(router: Router, deps: Services, appPath: string): void {
  const overview = pageHandler(appPath, 'app.overview.title', async ({ ctx, principal, csrf }) => {
    const [tenant, keys, mandates, requests, completed, waiting] = await Promise.all([
      Tenant.query(deps.db).findById(principal.tenant_id),
      keysOfPrincipal(deps.db, principal.id),
      mandatesOfPrincipal(deps.db, principal.id),
      SignRequest.whereOpenAt(SignRequest.query(deps.db).where({ principal_id: principal.id })).orderBy('created_at', 'desc'),
      documentsOfPrincipal(deps.db, principal, { status: 'completed', limit: 5 }),
      waitingForPrincipal(deps.db, principal, 10),
    ]);
    // Documents waiting for the principal's own signature that no open request above already lists.
    const asked = new Set(requests.map((request) => request.document_id));
    const toSign = waiting.filter((document) => !asked.has(document.id));
    const documents = requests.length ? await Document.query(deps.db).findByIds([...new Set(requests.map((r) => r.document_id))]) : [];
    const keyOf = new Map<string, ApiKey>(keys.map((key) => [key.id, key]));
    const nameOf = new Map(documents.map((document) => [document.id, document.name]));
    const plan = tenant!.plan;

    const signature = principal.signature_sha256
      ? html`<p data-testid="signature-status">${tHtml('app.overview.signature_stored', {
          kind: nameWord('image', principal.signature_kind ?? ''),
          at: when(principal.signature_updated_at),
          link: html`<a href="${appPath}/signature">${t('app.overview.signature_change')}</a>`,
        })}</p>`
      : html`<p data-testid="signature-status">${tHtml('app.overview.signature_missing', {
          missing: html`<strong>${t('app.overview.signature_missing_strong')}</strong>`,
          link: html`<a href="${appPath}/signature">${t('app.overview.signature_add')}</a>`,
        })}</p>`;

    const pendingSignatures = html`${toSign.map(
      (document) =>
        html`<li><a href="${appPath}/documents/${document.id}" data-testid="waiting-document-link"><strong>${document.name}</strong></a>
<span class="meta">${tHtml('app.overview.pending', { at: when(document.sent_at) })}</span></li>`,
    )}`;
    const openRequests =
      requests.length + toSign.length
        ? html`<ul class="cards" data-testid="open-sign-requests">${pendingSignatures}${requests.map((request) => {
            const key = keyOf.get(request.api_key_id);
            const link = new URL(confirmUrl(deps.config.appUrl, deps.secret, request.id)).pathname;
            return html`<li><a href="${link}" data-testid="sign-request-link"><strong>${nameOf.get(request.document_id) ?? request.document_id}</strong></a>
<span class="meta">${tHtml('app.overview.asked', { label: key?.label ?? '', reason: request.reason, at: when(request.expires_at) })}</span></li>`;
          })}</ul>`
        : html`<p class="muted">${t('app.overview.nothing_waiting')}</p>`;

    const completedList = completed.length
      ? html`<ul class="cards" data-testid="completed-documents">${completed.map(
          (document) =>
            html`<li><a href="${appPath}/documents/${document.id}/download" data-testid="completed-download"><strong>${document.name}</strong></a>
<span class="meta">${tHtml('app.overview.completed', { at: when(document.completed_at) })}</span></li>`,
        )}</ul>`
      : html`<p class="muted">${t('app.overview.no_completed')}</p>`;

    const liveKeys = keys.filter((key) => !key.revoked_at);
    const keyList = liveKeys.length
      ? html`<ul>${liveKeys.map((key) => html`<li>${key.label} <code>${key.prefix}…</code>${key.scopes.includes('documents:sign') && ` · ${t('app.overview.key_may_sign')}`}</li>`)}</ul>`
      : html`<p class="muted">${t('app.overview.no_keys')}</p>`;

    const mandateList = mandates.length
      ? html`<ul>${mandates
          .slice(0, 10)
          .map(
            (mandate) =>
              html`<li>${mandate.name} · ${nameWord('level', mandate.confirmation_level)} · ${keyOf.get(mandate.api_key_id)?.label ?? ''} · <span class="badge ${mandateStatus(mandate)}">${nameWord('status', mandateStatus(mandate))}</span></li>`,
          )}</ul>`
      : html`<p class="muted">${t('app.overview.no_mandates')}</p>`;

    const body = html`<section aria-labelledby="requests-title"><h2 id="requests-title">${t('app.overview.waiting')}</h2>${openRequests}<p><a href="${appPath}/documents?section=waiting">${t('app.overview.all_waiting')}</a></p></section>
<section aria-labelledby="completed-title"><h2 id="completed-title">${t('app.overview.recently_completed')}</h2>${completedList}<p><a href="${appPath}/documents">${t('app.overview.all_documents')}</a></p></section>
<section aria-labelledby="signature-title"><h2 id="signature-title">${t('app.overview.signature')}</h2>${signature}</section>
<section aria-labelledby="keys-title"><h2 id="keys-title">${t('app.overview.keys')}</h2>${keyList}<p><a href="${appPath}/keys">${t('app.overview.manage_keys')}</a></p></section>
<section aria-labelledby="mandates-title"><h2 id="mandates-title">${t('app.overview.mandates')}</h2>${mandateList}<p><a href="${appPath}/mandates">${t('app.overview.manage_mandates')}</a></p></section>
<section aria-labelledby="plan-title"><h2 id="plan-title">${t('app.overview.plan')}</h2><p data-testid="plan">${tHtml('app.overview.plan_is', { plan: html`<strong>${nameWord('plan', plan)}</strong>` })} ${
      isBusinessPlus(plan) ? t('app.overview.plan_api') : t('app.overview.plan_no_api')
    }</p></section>`;
    sendPage(
      ctx,
      renderPage({ title: t('app.overview.title'), appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/' }),
    );
  });
  router.get(appPath || '/', overview);
  router.get(`${appPath}/`, overview);
}
