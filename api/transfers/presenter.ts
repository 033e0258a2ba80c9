import type { DownloadLink } from '../../activities/transfers/claims';
import type { TransferView } from '../../activities/transfers/transfers';
import type { Document, DriveFile, TransferRecipient } from '../../db/models';
import type { PublicTransferResponse, TransferResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function presentFile(file: DriveFile) {
  return { drive_file_id: file.id, name: file.name, kind: file.kind, size: Number(file.size), sha256: file.sha256 };
}

function presentRecipient(recipient: TransferRecipient) {
  return {
    recipient_id: recipient.id,
    email: recipient.email,
    name: recipient.name,
    accepted: Boolean(recipient.accepted_at),
    accepted_at: iso(recipient.accepted_at),
    claimed: Boolean(recipient.claimed_at),
    bound: Boolean(recipient.bound_principal_id),
  };
}

export function presentTransfer(view: TransferView, viewerId: string): TransferResponse {
  const { transfer } = view;
  return {
    transfer_id: transfer.id,
    name: transfer.name,
    mode: transfer.mode,
    status: transfer.status,
    can_release: transfer.status === 'released',
    direction: transfer.principal_id === viewerId ? 'sent' : 'received',
    document_id: transfer.document_id,
    requires_acceptance: transfer.mode === 'accept',
    blocked_reason: transfer.blocked_reason,
    from: { email: view.sender.email, name: view.sender.name },
    files: view.files.map(presentFile),
    recipients: view.recipients.map(presentRecipient),
    created_at: transfer.created_at.toISOString(),
    offered_at: iso(transfer.offered_at),
    released_at: iso(transfer.released_at),
    cancelled_at: iso(transfer.cancelled_at),
  };
}

/** A package as its claim token shows it: what is offered, by whom, and where it stands; no file URL. */
export function presentPublicTransfer(view: TransferView, recipient: TransferRecipient, document?: Document): PublicTransferResponse {
  const { transfer } = view;
  return {
    transfer_id: transfer.id,
    name: transfer.name,
    mode: transfer.mode,
    status: transfer.status,
    can_release: transfer.status === 'released',
    blocked_reason: transfer.blocked_reason,
    from: { email: view.sender.email, name: view.sender.name },
    document: document ? { document_id: document.id, name: document.name, status: document.status } : null,
    files: view.files.map(({ name, kind, size, sha256 }) => ({ name, kind, size: Number(size), sha256 })),
    recipient: {
      email: recipient.email,
      name: recipient.name,
      accepted: Boolean(recipient.accepted_at),
      bound: Boolean(recipient.bound_principal_id),
    },
    recipients_accepted: view.recipients.filter((r) => r.accepted_at).length,
    recipients_total: view.recipients.length,
  };
}

export function presentDownloads(transferId: string, links: DownloadLink[]) {
  return {
    transfer_id: transferId,
    files: links.map(({ file, url, expires_at }) => ({ ...presentFile(file), media_type: file.media_type, url, expires_at })),
  };
}
