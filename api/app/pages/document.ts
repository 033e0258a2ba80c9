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
import { html, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { dataTable, pageHandler, when } from './common';

const AUDIT_PAGE = 100;

/** What each audit action says on the page; an action not listed shows its name. */
const ACTION_WORDS: Record<string, string> = {
  'document.created': 'Created',
  'document.sent': 'Sent to its signers',
  'document.signers_added': 'Signers added',
  'mail.sent': 'E-mail sent',
  'mail.failed': 'E-mail could not be delivered',
  'document.viewed': 'Opened by a signer',
  'sign.code_sent': 'Sign-in code sent to a signer',
  'sign.email_verified': 'Signer’s e-mail code verified',
  'signature.submitted': 'Signature submitted',
  'signature.rejected': 'Signature refused',
  'document.signed': 'Signed',
  'document.declined': 'Declined',
  'document.reminded': 'Reminder sent',
  'document.voided': 'Voided',
  'document.expired': 'Expired',
  'document.completed': 'Completed: signed by everyone',
  'sign_request.created': 'Confirmation asked (L1 request)',
  'sign_request.confirmed': 'Confirmed in the app',
  'sign_request.declined': 'Confirmation declined',
  'sign_request.expired': 'Confirmation request expired',
  'sign_request.applied': 'Confirmed signature applied',
  'offer.created': 'Offer made',
  'offer.acknowledged': 'Offer acknowledged',
  'offer.accepted': 'Offer accepted',
  'offer.declined': 'Offer declined',
  'offer.escalated': 'Offer escalated to the principal',
  'offer.expired': 'Offer expired',
};

const ACTOR_WORDS: Record<AuditTrailLine['actor']['kind'], string> = {
  signer: 'signer',
  principal: 'principal',
  agent: 'agent (API key)',
  operator: 'operator',
  system: 'service',
  recipient: 'recipient',
};

const DocumentPageQuerySchema = z.object({ audit_cursor: z.string().min(1).max(200).optional() });

const METHOD_WORDS: Record<string, string> = {
  'browser:drawn': 'drawn at the sign link',
  'browser:typed': 'typed at the sign link',
  'browser:uploaded': 'uploaded image at the sign link',
  'mandate:l1': 'stored signature, confirmed in the app',
  'mandate:l2': 'stored signature, applied by an authorized agent',
};

/** How a signer signed: the method, and for an apply by mandate its level and mandate. */
function howSigned(signer: DocumentSigner): SafeHtml {
  if (signer.status === 'declined')
    return html`Declined ${when(signer.declined_at)}${signer.decline_reason && html`: “${signer.decline_reason}”`}`;
  if (signer.status !== 'signed') return html`Not yet`;
  const by = signer.mandate_id
    ? html` by an authorized agent, mandate <code>${signer.mandate_id}</code> (${(signer.confirmation_level ?? '').toUpperCase()})`
    : '';
  return html`<span data-testid="signed-how">${METHOD_WORDS[signer.method ?? ''] ?? signer.method ?? 'signed'}${by}, ${when(signer.signed_at)}${
    signer.signed_name && html` as ${signer.signed_name} &lt;${signer.signed_email ?? ''}&gt;`
  }</span>`;
}

function auditTable(lines: AuditTrailLine[]): SafeHtml {
  return dataTable(
    'audit-trail',
    ['When', 'What', 'Who', 'Principal / mandate', 'From'],
    lines.map((line) => ({
      attrs: { 'data-action': line.action },
      cells: [
        when(line.at),
        html`${ACTION_WORDS[line.action] ?? line.action} <code class="muted">${line.action}</code>`,
        html`${line.actor.name ?? '—'} <span class="muted">(${ACTOR_WORDS[line.actor.kind] ?? line.actor.kind})</span>`,
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
    pageHandler(appPath, 'Document', async ({ ctx, principal, csrf }) => {
      const parsed = DocumentPageQuerySchema.safeParse(ctx.query);
      if (!parsed.success) throw errors.invalidRequest('This page does not take these parameters.');
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
<p><a href="${appPath}/documents/${document.id}/download" data-testid="download">${document.status === 'completed' ? 'Download the completed PDF' : 'Download the current PDF'}</a></p>
<section aria-labelledby="signers-title"><h2 id="signers-title">Signers</h2>${dataTable(
        'signers',
        ['Signer', 'Role', 'Status', 'How'],
        signers.map((signer) => ({
          attrs: { 'data-signer': signer.id },
          cells: [
            html`${signer.name} &lt;${signer.email}&gt;${signer.email === me && html` <strong>(you)</strong>`}`,
            signer.role,
            html`<span class="badge ${signer.status}">${signer.status}</span>`,
            howSigned(signer),
          ],
        })),
      )}</section>
${requestsSection(requests, keyOf)}
${offersSection(offers)}
<section aria-labelledby="audit-title"><h2 id="audit-title">Audit trail</h2>${
        trail.items.length ? auditTable(trail.items) : html`<p class="muted">No audit lines yet.</p>`
      }${
        trail.next_cursor &&
        html`<p><a href="${appPath}/documents/${document.id}?audit_cursor=${trail.next_cursor}" data-testid="audit-next" rel="next">Later lines</a></p>`
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
        const words = open ? 'Your agent asked you to confirm: review and sign now' : 'Your signature is pending: sign now';
        return html`<p class="notice ok" data-testid="sign-now-box"><a href="${href}" data-testid="sign-now">${words}</a></p>`;
      }
    }),
  );

  function facts(document: Document, owned: boolean, owner: Principal | undefined, key: ApiKey | undefined): SafeHtml {
    return html`<dl class="facts" data-testid="document-facts">
<dt>Status</dt><dd><span class="badge ${document.status}" data-testid="document-status">${document.status}</span></dd>
<dt>Sent by</dt><dd>${owned ? 'You' : (owner?.name ?? '')}${owned && key && html` (API key “${key.label}”)`}</dd>
<dt>Created</dt><dd>${when(document.created_at)}</dd>
<dt>Sent</dt><dd>${when(document.sent_at)}</dd>
<dt>Completed</dt><dd>${when(document.completed_at)}</dd>
<dt>Signing order</dt><dd>${document.strict_order ? 'one after another' : 'any order'}</dd>
<dt>SHA-256 of the current PDF</dt><dd><code>${document.current_sha256}</code></dd></dl>`;
  }

  function requestsSection(requests: SignRequest[], keyOf: Map<string, ApiKey>): SafeHtml | '' {
    if (!requests.length) return '';
    return html`<section aria-labelledby="requests-title"><h2 id="requests-title">Your agents’ requests to confirm (L1)</h2>${dataTable(
      'sign-requests',
      ['Request', 'Asked by', 'Reason', 'Status', 'Expires'],
      requests.map((request) => ({
        attrs: { 'data-sign-request': request.id },
        cells: [
          request.isOpenAt()
            ? html`<a href="${new URL(confirmUrl(deps.config.appUrl, deps.secret, request.id)).pathname}">${request.id}</a>`
            : request.id,
          keyOf.get(request.api_key_id)?.label ?? '',
          request.reason,
          request.status === 'confirming' ? 'confirmed' : request.status,
          when(request.expires_at),
        ],
      })),
    )}</section>`;
  }

  function offersSection(offers: Offer[]): SafeHtml | '' {
    if (!offers.length) return '';
    return html`<section aria-labelledby="offers-title"><h2 id="offers-title">Offers on this document</h2>${dataTable(
      'offers',
      ['Offer', 'From', 'To', 'Terms', 'Status', 'Expires'],
      offers.map((offer) => ({
        attrs: { 'data-offer': offer.id },
        cells: [offer.id, offer.from_email, offer.to_email, offer.terms, offer.status, when(offer.expires_at)],
      })),
    )}</section>`;
  }

  function voidForm(document: Document, csrf: string): SafeHtml {
    return html`<section aria-labelledby="void-title"><h2 id="void-title">Void this document</h2>
<form method="post" action="${appPath}/documents/${document.id}/void" data-testid="void-form">${hiddenCsrf(csrf)}
<label for="void-reason">Why (the signers are told)</label>
<textarea id="void-reason" name="reason" rows="3" maxlength="2000" required></textarea>
<button type="submit" class="danger" data-testid="void">Void the document</button></form></section>`;
  }
}
