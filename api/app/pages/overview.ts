import type Router from '@koa/router';
import { isBusinessPlus, keysOfPrincipal } from '../../../activities/accounts/accounts';
import { documentsOfPrincipal, waitingForPrincipal } from '../../../activities/documents/principal-documents';
import { mandateStatus, mandatesOfPrincipal } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import { confirmUrl } from '../../../activities/signing/signing';
import { type ApiKey, Document, SignRequest, Tenant } from '../../../db/models';
import { html } from '../../http/html';
import { renderPage, sendPage } from '../layout';
import { pageHandler, when } from './common';

/** The principal's overview: signature, keys, mandates, sign requests waiting for them, plan. */
export function overviewRoutes(router: Router, deps: Services, appPath: string): void {
  const overview = pageHandler(appPath, 'Overview', async ({ ctx, principal, csrf }) => {
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
      ? html`<p data-testid="signature-status">Stored (${principal.signature_kind ?? ''}, ${when(principal.signature_updated_at)}). <a href="${appPath}/signature">See or change it</a></p>`
      : html`<p data-testid="signature-status"><strong>Not stored yet.</strong> Agents cannot sign for you until you <a href="${appPath}/signature">add your signature</a>.</p>`;

    const pendingSignatures = html`${toSign.map(
      (document) =>
        html`<li><a href="${appPath}/documents/${document.id}" data-testid="waiting-document-link"><strong>${document.name}</strong></a>
<span class="meta">Your signature is pending · sent ${when(document.sent_at)}</span></li>`,
    )}`;
    const openRequests =
      requests.length + toSign.length
        ? html`<ul class="cards" data-testid="open-sign-requests">${pendingSignatures}${requests.map((request) => {
            const key = keyOf.get(request.api_key_id);
            const link = new URL(confirmUrl(deps.config.appUrl, deps.secret, request.id)).pathname;
            return html`<li><a href="${link}" data-testid="sign-request-link"><strong>${nameOf.get(request.document_id) ?? request.document_id}</strong></a>
<span class="meta">Asked by “${key?.label ?? ''}” · ${request.reason} · expires ${when(request.expires_at)}</span></li>`;
          })}</ul>`
        : html`<p class="muted">Nothing is waiting for you.</p>`;

    const completedList = completed.length
      ? html`<ul class="cards" data-testid="completed-documents">${completed.map(
          (document) =>
            html`<li><a href="${appPath}/documents/${document.id}/download" data-testid="completed-download"><strong>${document.name}</strong></a>
<span class="meta">Completed ${when(document.completed_at)} · signed by everyone · PDF with its certificate of completion</span></li>`,
        )}</ul>`
      : html`<p class="muted">No completed documents yet.</p>`;

    const liveKeys = keys.filter((key) => !key.revoked_at);
    const keyList = liveKeys.length
      ? html`<ul>${liveKeys.map((key) => html`<li>${key.label} <code>${key.prefix}…</code>${key.scopes.includes('documents:sign') ? ' · may sign under a mandate' : ''}</li>`)}</ul>`
      : html`<p class="muted">No API keys yet.</p>`;

    const mandateList = mandates.length
      ? html`<ul>${mandates
          .slice(0, 10)
          .map(
            (mandate) =>
              html`<li>${mandate.name} · ${mandate.confirmation_level} · ${keyOf.get(mandate.api_key_id)?.label ?? ''} · <span class="badge ${mandateStatus(mandate)}">${mandateStatus(mandate)}</span></li>`,
          )}</ul>`
      : html`<p class="muted">No mandates: no agent can sign for you.</p>`;

    const body = html`<section aria-labelledby="requests-title"><h2 id="requests-title">Waiting for you</h2>${openRequests}<p><a href="${appPath}/documents?section=waiting">Everything waiting for your signature</a></p></section>
<section aria-labelledby="completed-title"><h2 id="completed-title">Recently completed</h2>${completedList}<p><a href="${appPath}/documents">All your documents</a></p></section>
<section aria-labelledby="signature-title"><h2 id="signature-title">Your signature</h2>${signature}</section>
<section aria-labelledby="keys-title"><h2 id="keys-title">API keys</h2>${keyList}<p><a href="${appPath}/keys">Manage API keys</a></p></section>
<section aria-labelledby="mandates-title"><h2 id="mandates-title">Mandates</h2>${mandateList}<p><a href="${appPath}/mandates">Manage mandates</a></p></section>
<section aria-labelledby="plan-title"><h2 id="plan-title">Plan</h2><p data-testid="plan">Your account is on the <strong>${plan}</strong> plan.${
      isBusinessPlus(plan) ? ' API access is included.' : ' API access (and so API keys and mandates) needs the Business plan or higher.'
    }</p></section>`;
    sendPage(ctx, renderPage({ title: 'Overview', appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/' }));
  });
  router.get(appPath || '/', overview);
  router.get(`${appPath}/`, overview);
}
