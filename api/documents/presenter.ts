import { applyState } from '../../activities/apply/apply-outcome';
import type { DocumentWithSigners, ShownDocument } from '../../activities/documents/documents';
import type { Invitation } from '../../activities/documents/invitations';
import { signUrl } from '../../activities/documents/links';
import type { DocumentSigner } from '../../db/models';
import type { DocumentRemindResponse, DocumentResponse, DownloadResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function nextActions({ document, signers }: DocumentWithSigners<ShownDocument>, inbound: boolean): DocumentResponse['next_actions'] {
  const base = `/v1/documents/${document.id}`;
  const actions: DocumentResponse['next_actions'] = [];
  if (document.status === 'draft') {
    if (signers.length < document.roles.length) {
      actions.push({
        action: 'add_signers',
        method: 'POST',
        path: `${base}/signers`,
        description: `Add signers for: ${document.roles.slice(signers.length).join(', ')}.`,
      });
    } else {
      actions.push({
        action: 'send',
        method: 'POST',
        path: `${base}/send`,
        body: { confirm: true },
        description: 'Send the document to its signers.',
      });
    }
  }
  if (document.status === 'sent' && !inbound) {
    actions.push({
      action: 'wait_for_signers',
      method: 'GET',
      path: base,
      description: 'Signers sign at their sign_url; poll this document or subscribe to document.signed and document.completed.',
    });
    actions.push(
      {
        action: 'remind',
        method: 'POST',
        path: `${base}/remind`,
        description: 'E-mail the pending signers (under strict order, the one whose turn it is) a reminder now.',
      },
      {
        action: 'void',
        method: 'POST',
        path: `${base}/void`,
        body: { reason: '…' },
        description: 'Void it for good: its sign links, L1 requests and offers end; the pending signers are told the reason.',
      },
    );
  }
  actions.push({
    action: 'download',
    method: 'GET',
    path: `${base}/download`,
    description: 'A short-lived URL of the current sealed PDF.',
  });
  return actions;
}

function presentSigner(
  signer: DocumentSigner,
  owner: { link: string; invitation: Invitation | null } | undefined,
): DocumentResponse['signers'][number] {
  return {
    signer_id: signer.id,
    name: signer.name,
    email: signer.email,
    role: signer.role,
    status: signer.status,
    signed_at: iso(signer.signed_at),
    signed_as: signer.signed_name && signer.signed_email ? { name: signer.signed_name, email: signer.signed_email } : null,
    apply: signer.lastApply ? applyState(signer.lastApply) : null,
    ...(owner ? { sign_url: owner.link, invitation: owner.invitation } : {}),
  };
}

/** A document as the API shows it; sign links and invitation states only to the sending account. */
export function presentDocument(
  view: DocumentWithSigners<ShownDocument>,
  options: { inbound: boolean; appUrl: string; secret: Buffer; invitations?: Map<string, Invitation> },
): DocumentResponse {
  const { document, signers } = view;
  return {
    document_id: document.id,
    name: document.name,
    status: document.status,
    direction: options.inbound ? 'inbound' : 'outbound',
    template_id: document.template_id,
    strict_order: document.strict_order,
    page_count: document.page_count,
    original_sha256: document.original_sha256,
    document_hash: document.current_sha256,
    created_at: document.created_at.toISOString(),
    sent_at: iso(document.sent_at),
    completed_at: iso(document.completed_at),
    declined_at: iso(document.declined_at),
    expires_at: iso(document.expires_at),
    reminders: document.reminders,
    expired_at: iso(document.expired_at),
    voided_at: iso(document.voided_at),
    void_reason: document.void_reason,
    receipt_jws: document.receipt_jws,
    signers: signers.map((signer) =>
      presentSigner(
        signer,
        options.inbound
          ? undefined
          : { link: signUrl(options.appUrl, options.secret, signer.id), invitation: options.invitations?.get(signer.id) ?? null },
      ),
    ),
    next_actions: nextActions(view, options.inbound),
  };
}

/** The signers a remind mailed. */
export function presentReminded(documentId: string, signers: DocumentSigner[]): DocumentRemindResponse {
  return { document_id: documentId, reminded: signers.map((signer) => ({ signer_id: signer.id, name: signer.name, email: signer.email })) };
}

/** A short-lived URL of the current sealed PDF, with the SHA-256 the file will have. */
export function presentDownload(link: { url: string; expires_at: string }, sha256: string): DownloadResponse {
  return { url: link.url, expires_at: link.expires_at, sha256 };
}
