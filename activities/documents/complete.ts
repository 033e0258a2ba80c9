import { recordAudit } from '../audit/audit';
import { Document, DocumentRevision, type DocumentSigner } from '../../db/models';
import { emitEvent } from '../events/outbox';
import { appendCertificatePage, type CertificateSigner } from '../pdf/certificate';
import type { ApplyDeps, Progress } from './apply';
import { signersOf } from './documents';

/** How a signer signed, in words for the certificate (never naming an agent or key). */
export function describeMethod(method: string | null): string {
  const [kind, detail] = (method ?? '').split(':');
  if (kind === 'mandate') return `Stored signature applied under the principal's mandate (${(detail ?? 'l2').toUpperCase()})`;
  const how = { drawn: 'drawn', typed: 'typed', uploaded: 'uploaded image' }[detail as string] ?? 'signature';
  return `Electronic signature in the browser (${how}), e-mail verified`;
}

function certificateSigner(signer: DocumentSigner): CertificateSigner {
  return {
    name: signer.name,
    email: signer.email,
    signedAt: signer.signed_at!,
    method: describeMethod(signer.method),
    ...(signer.mandate_id
      ? { viaAgent: { mandateId: signer.mandate_id, level: (signer.confirmation_level ?? 'l2').toUpperCase() as 'L1' | 'L2' } }
      : {}),
  };
}

export interface CompletionOutcome {
  status: string;
  completed: boolean;
  final_sha256?: string;
}

/**
 * When every signer has signed: appends the certificate of completion, seals once more and marks
 * the document completed, with `document.completed` in the same transaction. Idempotent.
 */
export async function completeDocument(deps: ApplyDeps, documentId: string, progress: Progress = () => undefined): Promise<CompletionOutcome> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const document = (await Document.query(deps.db).findById(documentId))!;
    if (document.status === 'completed') return { status: 'completed', completed: true, final_sha256: document.current_sha256 };
    const signers = await signersOf(deps.db, documentId);
    if (document.status !== 'sent' || !signers.every((signer) => signer.status === 'signed')) return { status: document.status, completed: false };

    const current = (await DocumentRevision.query(deps.db).findById([documentId, document.current_revision]))!;
    const completedAt = new Date();
    const unsealed = await deps.blobs.get(current.unsealed_sha256);
    const withCertificate = await appendCertificatePage(unsealed, {
      documentId,
      documentName: document.name,
      originalSha256: document.original_sha256,
      finalSha256: document.current_sha256,
      completedAt,
      signers: signers.map(certificateSigner),
    });
    progress();
    const sealed = await (await deps.sealer()).seal(withCertificate, { reason: 'Completed: every signer has signed', signedAt: completedAt });
    const [unsealedSha256, sealedSha256] = [await deps.blobs.put(withCertificate), await deps.blobs.put(sealed)];

    const done = await deps.db.transaction(async (trx) => {
      const locked = (await Document.query(trx).findById(documentId).forUpdate())!;
      if (locked.status === 'completed') return true;
      if (locked.current_revision !== document.current_revision || locked.status !== 'sent') return false;
      const revision = locked.current_revision + 1;
      await DocumentRevision.query(trx).insert({ document_id: documentId, revision, kind: 'completion', sealed_sha256: sealedSha256, unsealed_sha256: unsealedSha256 });
      await locked.$query(trx).patch({ status: 'completed', completed_at: completedAt, current_revision: revision, current_sha256: sealedSha256 });
      await recordAudit(trx, { tenantId: locked.tenant_id, documentId, actor: { type: 'system' }, action: 'document.completed', data: { signed_sha256: locked.current_sha256, final_sha256: sealedSha256, revision } });
      await emitEvent(trx, locked.tenant_id, 'document.completed', {
        document_id: documentId,
        name: locked.name,
        completed_at: completedAt.toISOString(),
        original_sha256: locked.original_sha256,
        signed_sha256: locked.current_sha256,
        final_sha256: sealedSha256,
        signers: signers.map((signer) => ({
          name: signer.name,
          email: signer.email,
          signed_at: signer.signed_at!.toISOString(),
          method: signer.method,
          mandate_id: signer.mandate_id,
          confirmation_level: signer.confirmation_level,
          pre_sign_hash: signer.pre_sign_hash,
          document_hash: signer.document_hash,
        })),
      });
      return true;
    });
    if (done) return { status: 'completed', completed: true, final_sha256: sealedSha256 };
  }
  throw new Error(`document ${documentId}: completion kept conflicting; giving up for this attempt`);
}
