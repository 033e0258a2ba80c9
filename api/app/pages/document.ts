import type Router from '@koa/router';
import { z } from 'zod';
import { normalizeEmail } from '../../../activities/accounts/accounts';
import { type AuditTrailLine, auditTrailOf } from '../../../activities/documents/audit-trail';
import { signersOf } from '../../../activities/documents/documents';
import { signUrl } from '../../../activities/documents/links';
import { documentOfPrincipal } from '../../../activities/documents/principal-documents';
import type { Services } from '../../../activities/services';
import { confirmUrl } from '../../../activities/signing/signing';
import { ApiKey, type Document, type DocumentSigner, Offer, Principal, SignRequest } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { hasMessage, t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { dataTable, nameWord, pageHandler, when } from './common';

const AUDIT_PAGE = 100;

const DocumentPageQuerySchema = z.object({ audit_cursor: z.string().min(1).max(200).optional() });

/**
 * A word of the catalogue by a name of the data (an audit action, a signing method, an actor's kind,
 * and the name of an actor that is the service itself or an operator); the name itself when it has none.
 */
function wordFor(group: 'action' | 'method' | 'actor' | 'actor_name', name: string): string | undefined {
  const key = `app.document.${group}.${name}`;
  return hasMessage(key) ? t(key) : undefined;
}

/** How a signer signed: the method, and for an apply by mandate its level and mandate. */
function howSigned(signer: DocumentSigner): SafeHtml {
  if (signer.status === 'declined')
    return signer.decline_reason
      ? tHtml('app.document.declined_because', { at: when(signer.declined_at), reason: signer.decline_reason })
      : tHtml('app.document.declined', { at: when(signer.declined_at) });
  if (signer.status !== 'signed') return html`${t('app.document.not_yet')}`;
  const method = wordFor('method', signer.method ?? '') ?? signer.method ?? t('app.document.signed');
  const by = signer.mandate_id
    ? tHtml('app.document.by_agent', {
        how: method,
        mandate: html`<code>${signer.mandate_id}</code>`,
        level: nameWord('level', (signer.confirmation_level ?? '').toUpperCase()),
      })
    : method;
  const at = tHtml('app.document.signed_at', { how: by, at: when(signer.signed_at) });
  return html`<span data-testid="signed-how">${
    signer.signed_name ? tHtml('app.document.signed_as', { how: at, name: signer.signed_name, email: signer.signed_email ?? '' }) : at
  }</span>`;
}

function auditTable(lines: AuditTrailLine[]): SafeHtml {
  return dataTable(
    'audit-trail',
    [
      t('app.document.audit.when'),
      t('app.document.audit.what'),
      t('app.document.audit.who'),
      t('app.document.audit.principal'),
      t('app.document.audit.from'),
    ],
    lines.map((line) => ({
      attrs: { 'data-action': line.action },
      cells: [
        when(line.at),
        html`${wordFor('action', line.action) ?? line.action} <code class="muted">${line.action}</code>`,
        html`${wordFor('actor_name', line.actor.kind) ?? line.actor.name ?? '—'} <span class="muted">(${wordFor('actor', line.actor.kind) ?? line.actor.kind})</span>`,
        [line.principal_id, line.mandate_id].filter(Boolean).join(' / ') || '—',
        [line.ip, line.user_agent].filter(Boolean).join(' · ') || '—',
      ],
    })),
  );
}

/**
 * A document's page in the app, for a principal who sent it (by any of their keys) or signs it:
 * status, signers and how each signed, the audit trail, the L1 requests and offers on it, the PDF,
 * "sign now" for their own pending signature, and "void" for a sent document of theirs.
 */
export function documentPageRoutes(router: Router, deps: Services, appPath: string): void {
  router.get(
    `${appPath}/documents/:id`,
    pageHandler(appPath, 'app.document.title', async ({ ctx, principal, csrf }) => {
      const parsed = DocumentPageQuerySchema.safeParse(ctx.query);
      if (!parsed.success) throw errors.invalidRequest(t('app.document.bad_query'));
      const document = await documentOfPrincipal(deps.db, principal, ctx.params.id);
      const me = normalizeEmail(principal.email);
      const owned = document.owner_principal_id === principal.id;
      const [signers, trail, requests, offers, owner, key] = await Promise.all([
        signersOf(deps.db, document.id),
        auditTrailOf(deps.db, document.id, { limit: AUDIT_PAGE, cursor: parsed.data.audit_cursor }),
        SignRequest.query(deps.db).where({ document_id: document.id, principal_id: principal.id }).orderBy('created_at', 'desc'),
        Offer.query(deps.db)
          .where({ document_id: document.id })
          .where((mine) => mine.where('from_principal_id', principal.id).orWhere('to_principal_id', principal.id))
          .orderBy('created_at', 'desc'),
        Principal.query(deps.db).findById(document.owner_principal_id),
        document.created_by_key_id ? ApiKey.query(deps.db).findById(document.created_by_key_id) : undefined,
      ]);
      const keyOf = new Map(
        (await ApiKey.query(deps.db).findByIds([...new Set(requests.map((request) => request.api_key_id))])).map((k) => [k.id, k]),
      );
      const mine = signers.find((signer) => signer.email === me);
      const body = html`${facts(document, owned, owner, key)}
${signNow(document, mine, requests)}
<p><a href="${appPath}/documents/${document.id}/download" data-testid="download">${t(document.status === 'completed' ? 'app.document.download_completed' : 'app.document.download_current')}</a></p>
<section aria-labelledby="signers-title"><h2 id="signers-title">${t('app.document.signers')}</h2>${dataTable(
        'signers',
        [t('app.document.column.signer'), t('app.document.column.role'), t('app.document.column.status'), t('app.document.column.how')],
        signers.map((signer) => ({
          attrs: { 'data-signer': signer.id },
          cells: [
            html`${signer.name} &lt;${signer.email}&gt;${signer.email === me && html` <strong>${t('app.document.you_mark')}</strong>`}`,
            signer.role,
            html`<span class="badge ${signer.status}">${nameWord('status', signer.status)}</span>`,
            howSigned(signer),
          ],
        })),
      )}</section>
${requestsSection(requests, keyOf)}
${offersSection(offers)}
<section aria-labelledby="audit-title"><h2 id="audit-title">${t('app.document.audit_title')}</h2>${
        trail.items.length ? auditTable(trail.items) : html`<p class="muted">${t('app.document.no_audit')}</p>`
      }${
        trail.next_cursor &&
        html`<p><a href="${appPath}/documents/${document.id}?audit_cursor=${trail.next_cursor}" data-testid="audit-next" rel="next">${t('app.document.later_lines')}</a></p>`
      }</section>
${owned && document.status === 'sent' && voidForm(document, csrf)}`;
      sendPage(
        ctx,
        renderPage({ title: document.name, appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/documents' }),
      );

      function signNow(doc: Document, signer: DocumentSigner | undefined, mineRequests: SignRequest[]): SafeHtml | '' {
        if (doc.status !== 'sent' || signer?.status !== 'pending') return '';
        const open = mineRequests.find((request) => request.isOpenAt());
        const href = open
          ? new URL(confirmUrl(deps.config.appUrl, deps.secret, open.id)).pathname
          : new URL(signUrl(deps.config.appUrl, deps.secret, signer.id)).pathname;
        const words = t(open ? 'app.document.sign_now_asked' : 'app.document.sign_now');
        return html`<p class="notice ok" data-testid="sign-now-box"><a href="${href}" data-testid="sign-now">${words}</a></p>`;
      }
    }),
  );

  function facts(document: Document, owned: boolean, owner: Principal | undefined, key: ApiKey | undefined): SafeHtml {
    return html`<dl class="facts" data-testid="document-facts">
<dt>${t('app.document.status')}</dt><dd><span class="badge ${document.status}" data-testid="document-status">${nameWord('status', document.status)}</span></dd>
<dt>${t('app.document.sent_by')}</dt><dd>${owned ? (key ? t('app.document.you_with_key', { label: key.label }) : t('app.document.you')) : (owner?.name ?? '')}</dd>
<dt>${t('app.document.created')}</dt><dd>${when(document.created_at)}</dd>
<dt>${t('app.document.sent')}</dt><dd>${when(document.sent_at)}</dd>
<dt>${t('app.document.completed')}</dt><dd>${when(document.completed_at)}</dd>
<dt>${t('app.document.order')}</dt><dd>${t(document.strict_order ? 'app.document.order_strict' : 'app.document.order_any')}</dd>
<dt>${t('app.document.sha256')}</dt><dd><code>${document.current_sha256}</code></dd></dl>`;
  }

  function requestsSection(requests: SignRequest[], keyOf: Map<string, ApiKey>): SafeHtml | '' {
    if (!requests.length) return '';
    return html`<section aria-labelledby="requests-title"><h2 id="requests-title">${t('app.document.requests')}</h2>${dataTable(
      'sign-requests',
      [
        t('app.document.column.request'),
        t('app.document.column.asked_by'),
        t('app.document.column.reason'),
        t('app.document.column.status'),
        t('app.document.column.expires'),
      ],
      requests.map((request) => ({
        attrs: { 'data-sign-request': request.id },
        cells: [
          request.isOpenAt()
            ? html`<a href="${new URL(confirmUrl(deps.config.appUrl, deps.secret, request.id)).pathname}">${request.id}</a>`
            : request.id,
          keyOf.get(request.api_key_id)?.label ?? '',
          request.reason,
          nameWord('status', request.status === 'confirming' ? 'confirmed' : request.status),
          when(request.expires_at),
        ],
      })),
    )}</section>`;
  }

  function offersSection(offers: Offer[]): SafeHtml | '' {
    if (!offers.length) return '';
    return html`<section aria-labelledby="offers-title"><h2 id="offers-title">${t('app.document.offers')}</h2>${dataTable(
      'offers',
      [
        t('app.document.column.offer'),
        t('app.document.column.from'),
        t('app.document.column.to'),
        t('app.document.column.terms'),
        t('app.document.column.status'),
        t('app.document.column.expires'),
      ],
      offers.map((offer) => ({
        attrs: { 'data-offer': offer.id },
        cells: [offer.id, offer.from_email, offer.to_email, offer.terms, nameWord('status', offer.status), when(offer.expires_at)],
      })),
    )}</section>`;
  }

  function voidForm(document: Document, csrf: string): SafeHtml {
    return html`<section aria-labelledby="void-title"><h2 id="void-title">${t('app.document.void_title')}</h2>
<form method="post" action="${appPath}/documents/${document.id}/void" data-testid="void-form">${hiddenCsrf(csrf)}
<label for="void-reason">${t('app.document.void_reason')}</label>
<textarea id="void-reason" name="reason" rows="3" maxlength="2000" required></textarea>
<button type="submit" class="danger" data-testid="void">${t('app.document.void')}</button></form></section>`;
  }
}
