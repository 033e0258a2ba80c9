// What a completed PDF carries so that the file alone is the evidence: the document's audit trail
// (every step of every signer, with time, address and method) and the dual-attestation receipt,
// attached before the certification seal closes the file.
import type { Db } from '../../db/connect';
import { AuditEvent, type Document } from '../../db/models';
import { t } from '../../lib/i18n';
import type { Attachment } from '../../lib/pdf/certificate';
import type { ReceiptIssuer } from '../../lib/receipts';
import type { Actor, AuditAction } from '../audit/audit';
import { completionReceiptClaims, type ReceiptSigner } from '../receipts/receipts';

/** One line of the attached audit trail. */
export interface TrailEntry {
  at: string;
  action: string;
  actor: { type: string; id: string | null; ip: string | null; user_agent: string | null };
  data: Record<string, unknown>;
}

export interface CompletionEvidence {
  receiptJws: string;
  auditTrail: Buffer;
}

/** An audit entry not yet committed (it commits with the completion), as the trail shows it. */
export function trailEntry(entry: { action: AuditAction; data: Record<string, unknown>; actor: Actor }, at: Date): TrailEntry {
  return {
    at: at.toISOString(),
    action: entry.action,
    actor: { type: entry.actor.type, id: entry.actor.id ?? null, ip: entry.actor.ip ?? null, user_agent: entry.actor.userAgent ?? null },
    data: entry.data ?? {},
  };
}

/**
 * The completion receipt (signed now, so the PDF can carry the very JWS `document.completed` carries)
 * and the audit trail: the document's committed audit lines in order, then `pending`, the lines
 * that commit with the completion.
 */
export async function completionEvidence(
  deps: { db: Db; receipts: ReceiptIssuer },
  document: Document,
  input: { signers: ReceiptSigner[]; signedSha256: string; completedAt: Date; pending: TrailEntry[] },
): Promise<CompletionEvidence> {
  const receiptJws = await deps.receipts.sign(
    deps.db,
    completionReceiptClaims(document, input.signers, { signedSha256: input.signedSha256, completedAt: input.completedAt }),
    document.id,
  );
  const lines = await AuditEvent.query(deps.db)
    .where({ document_id: document.id })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  const trail = {
    document_id: document.id,
    document_name: document.name,
    original_sha256: document.original_sha256,
    signed_sha256: input.signedSha256,
    completed_at: input.completedAt.toISOString(),
    entries: [
      ...lines.map((line) => ({
        at: line.created_at.toISOString(),
        action: line.action,
        actor: { type: line.actor_type, id: line.actor_id, ip: line.ip, user_agent: line.user_agent },
        data: line.data,
      })),
      ...input.pending,
    ],
  };
  return { receiptJws, auditTrail: Buffer.from(`${JSON.stringify(trail, null, 2)}\n`) };
}

/** The evidence as PDF attachments (associated files of the document). */
export function evidenceAttachments(evidence: CompletionEvidence): Attachment[] {
  return [
    {
      name: 'audit-trail.json',
      mimeType: 'application/json',
      description: t('certificate.attachment.auditTrail'),
      bytes: evidence.auditTrail,
    },
    {
      name: 'receipt.jws',
      mimeType: 'application/jose',
      description: t('certificate.attachment.receipt'),
      bytes: Buffer.from(evidence.receiptJws),
    },
  ];
}
