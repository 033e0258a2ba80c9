import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { Document, DocumentRevision, type DocumentSigner, Mandate } from '../../db/models';
import { hasMessage, t } from '../../lib/i18n';
import { appendCertificatePage, type CertificateSigner } from '../../lib/pdf/certificate';
import { recordAudit } from '../audit/audit';
import { signersOf } from '../documents/documents';
import { type CompletionEvidence, completionEvidence, evidenceAttachments, type TrailEntry, trailEntry } from '../documents/evidence';
import { pdfStep } from '../documents/pdf-errors';
import { emitEventTo } from '../events/outbox';
import { credentialsOf } from '../mandates/credentials';
import { receiptSigner } from '../receipts/receipts';
import type { ApplyDeps, Progress } from './apply-deps';

/** How a signer signed, in words for the certificate (never naming an agent or key). */
export function describeMethod(method: string | null): string {
  const [kind, detail] = (method ?? '').split(':');
  if (kind === 'mandate') return t('certificate.method.mandate', { level: (detail ?? 'l2').toUpperCase() });
  const how = `certificate.method.browser.${detail}`;
  return t('certificate.method.browser', { how: t(hasMessage(how) ? how : 'certificate.method.browser.other') });
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A certificate line for one signature: who signed (the identity stamped), when and how. */
export function certificateEntry(input: {
  name: string;
  email: string;
  signedAt: Date;
  method: string | null;
  mandateId: string | null;
  level: string | null;
}): CertificateSigner {
  return {
    name: input.name,
    email: input.email,
    signedAt: input.signedAt,
    method: describeMethod(input.method),
    ...(input.mandateId ? { viaAgent: { mandateId: input.mandateId, level: (input.level ?? 'l2').toUpperCase() as 'L1' | 'L2' } } : {}),
  };
}

/** A signer who has signed, as the certificate names them: the signed identity, not the agent's label. */
export function certificateSigner(signer: DocumentSigner): CertificateSigner {
  return certificateEntry({
    name: signer.signed_name ?? signer.name,
    email: signer.signed_email ?? signer.email,
    signedAt: signer.signed_at!,
    method: signer.method,
    mandateId: signer.mandate_id,
    level: signer.confirmation_level,
  });
}

export interface Certified {
  unsealed: Uint8Array;
  sealed: Uint8Array;
}

/**
 * The signed PDF with the certificate of completion appended and the evidence attached (audit trail,
 * receipt), certified once more: the certification seal, its validation data and a document
 * timestamp (PAdES B-LTA). Validation data that could not be had is logged, never made up.
 */
export async function certify(
  deps: Pick<ApplyDeps, 'sealer' | 'log'>,
  signedUnsealed: Uint8Array,
  input: { document: Document; signers: CertificateSigner[]; signedSha256: string; completedAt: Date; evidence: CompletionEvidence },
): Promise<Certified> {
  const unsealed = await appendCertificatePage(signedUnsealed, {
    documentId: input.document.id,
    documentName: input.document.name,
    originalSha256: input.document.original_sha256,
    finalSha256: input.signedSha256,
    completedAt: input.completedAt,
    signers: input.signers,
    attachments: evidenceAttachments(input.evidence),
  });
  const { pdf: sealed, warnings } = await (await deps.sealer()).certify(unsealed, {
    reason: t('certificate.seal.reason'),
    signedAt: input.completedAt,
  });
  for (const warning of warnings) deps.log?.warn(`completion seal of ${input.document.id}: ${warning}`);
  return { unsealed, sealed };
}

/** The audit lines the completion commits, as the attached trail shows them before they commit. */
export function completionTrail(completedAt: Date, signedSha256: string): TrailEntry {
  return trailEntry({ actor: { type: 'system' }, action: 'document.completed', data: { signed_sha256: signedSha256 } }, completedAt);
}

/**
 * Commits the completion revision, the audit line and `document.completed` with its
 * dual-attestation receipt (also a JWS anyone can verify, and attached to the PDF), in the caller's
 * transaction (under the document's row lock). The event reaches the sender's tenant and the tenant
 * of every principal who signed under a mandate: each is a party to the receipt.
 */
export async function recordCompletion(
  trx: Knex.Transaction,
  document: Document,
  signers: DocumentSigner[],
  completion: { revision: number; unsealedSha256: string; sealedSha256: string; completedAt: Date; receiptJws: string },
): Promise<void> {
  const { revision, completedAt, receiptJws } = completion;
  await DocumentRevision.query(trx).insert({
    document_id: document.id,
    revision,
    kind: 'completion',
    sealed_sha256: completion.sealedSha256,
    unsealed_sha256: completion.unsealedSha256,
  });
  await document.$query(trx).patch({
    status: 'completed',
    completed_at: completedAt,
    current_revision: revision,
    current_sha256: completion.sealedSha256,
    receipt_jws: receiptJws,
  });
  await recordAudit(trx, {
    tenantId: document.tenant_id,
    documentId: document.id,
    actor: { type: 'system' },
    action: 'document.completed',
    data: { signed_sha256: document.current_sha256, final_sha256: completion.sealedSha256, revision },
  });
  const data = {
    document_id: document.id,
    name: document.name,
    completed_at: completedAt.toISOString(),
    original_sha256: document.original_sha256,
    signed_sha256: document.current_sha256,
    final_sha256: completion.sealedSha256,
    signers: signers.map((signer) => ({
      name: signer.signed_name ?? signer.name,
      email: signer.signed_email ?? signer.email,
      signed_at: signer.signed_at!.toISOString(),
      method: signer.method,
      mandate_id: signer.mandate_id,
      confirmation_level: signer.confirmation_level,
      pre_sign_hash: signer.pre_sign_hash,
      document_hash: signer.document_hash,
    })),
    receipt_jws: receiptJws,
  };
  const mandateIds = signers.map((signer) => signer.mandate_id).filter((id): id is string => Boolean(id));
  const principalTenants = mandateIds.length
    ? (await Mandate.query(trx).whereIn('id', mandateIds).select('tenant_id')).map((mandate) => mandate.tenant_id)
    : [];
  await emitEventTo(trx, [document.tenant_id, ...principalTenants], 'document.completed', data);
}

export interface CompletionOutcome {
  status: string;
  completed: boolean;
  final_sha256?: string;
}

/**
 * Completes a document whose every signer signed but which is still `sent`. The last apply now
 * completes the document itself; this remains for documents left in that state by an earlier
 * version. Idempotent.
 */
export async function completeDocument(
  deps: ApplyDeps,
  documentId: string,
  progress: Progress = () => undefined,
): Promise<CompletionOutcome> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const document = (await Document.query(deps.db).findById(documentId))!;
    if (document.status === 'completed') return { status: 'completed', completed: true, final_sha256: document.current_sha256 };
    const signers = await signersOf(deps.db, documentId);
    if (document.status !== 'sent' || !signers.every((signer) => signer.status === 'signed'))
      return { status: document.status, completed: false };

    const current = (await DocumentRevision.query(deps.db).findById([documentId, document.current_revision]))!;
    const completedAt = new Date();
    const unsealed = await deps.blobs.get(current.unsealed_sha256);
    const credentials = await credentialsOf(
      deps.db,
      signers.map((signer) => signer.mandate_id),
    );
    const evidence = await completionEvidence(deps, document, {
      signers: signers.map((signer) => receiptSigner(signer, credentials)),
      signedSha256: document.current_sha256,
      completedAt,
      pending: [completionTrail(completedAt, document.current_sha256)],
    });
    const certified = await pdfStep(() =>
      certify(deps, unsealed, {
        document,
        signers: signers.map(certificateSigner),
        signedSha256: document.current_sha256,
        completedAt,
        evidence,
      }),
    );
    progress('storing the certified PDFs in the blob store');
    const [unsealedSha256, sealedSha256] = [await deps.blobs.put(certified.unsealed), await deps.blobs.put(certified.sealed)];

    const done = await deps.db.transaction(async (trx) => {
      const locked = (await Document.query(trx).findById(documentId).forUpdate())!;
      if (locked.status === 'completed') return true;
      if (locked.current_revision !== document.current_revision || locked.status !== 'sent') return false;
      await recordCompletion(trx, locked, await signersOf(trx, documentId), {
        revision: locked.current_revision + 1,
        unsealedSha256,
        sealedSha256,
        completedAt,
        receiptJws: evidence.receiptJws,
      });
      return true;
    });
    if (done) return { status: 'completed', completed: true, final_sha256: sealedSha256 };
  }
  throw new Error(`document ${documentId}: completion kept conflicting; giving up for this attempt`);
}
