// What an apply's outcome is, as the API, the sign page and the waits read it.
import type { Db } from '../../db/connect';
import { Apply, Document, type DocumentSigner } from '../../db/models';
import { ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { signersOf } from '../documents/documents';

export interface ApplyOutcome {
  apply_id: string;
  /** Absent from a `pending` answer made when the wait ran out (byDeadline), which reads nothing. */
  signer_id?: string;
  status: 'pending' | 'applied' | 'rejected';
  code?: string;
  message?: string;
  document_status: string;
  all_signed: boolean;
  pre_sign_hash?: string | null;
  document_hash?: string | null;
}

/** A signer's latest apply as callers see it (GET /documents/:id, the sign page): `pending` is `processing`, as a 202 calls it. */
export interface ApplyState {
  apply_id: string;
  status: 'processing' | 'applied' | 'rejected';
  error: { code: string; message: string } | null;
  updated_at: string;
}

export function applyState(
  apply: Pick<Apply, 'id' | 'status' | 'error_code' | 'error_message' | 'created_at' | 'applied_at' | 'rejected_at'>,
): ApplyState {
  return {
    apply_id: apply.id,
    status: apply.status === 'pending' ? 'processing' : apply.status,
    error: apply.status === 'rejected' ? { code: apply.error_code ?? 'sign_failed', message: apply.error_message ?? '' } : null,
    updated_at: (apply.rejected_at ?? apply.applied_at ?? apply.created_at).toISOString(),
  };
}

/** The document's status as a caller should see it right after an apply: `completing` while the certificate is added. */
export function documentStatusAfter(outcome: ApplyOutcome): string {
  return outcome.all_signed && outcome.document_status === 'sent' ? 'completing' : outcome.document_status;
}

/** Why a rejected apply was refused, as the error the API answers with. */
export function rejectionOf(outcome: ApplyOutcome): ServiceError {
  return new ServiceError(
    (outcome.code ?? 'sign_failed') as ServiceError['code'],
    outcome.message ?? t('errors.documents.signature_not_applied'),
  );
}

export function outcomeOf(apply: Apply, document: Pick<Document, 'status'>, signers: DocumentSigner[]): ApplyOutcome {
  return {
    apply_id: apply.id,
    signer_id: apply.signer_id,
    status: apply.status,
    ...(apply.error_code ? { code: apply.error_code, message: apply.error_message ?? undefined } : {}),
    document_status: document.status,
    all_signed: signers.length > 0 && signers.every((signer) => signer.status === 'signed'),
    pre_sign_hash: apply.pre_sign_hash,
    document_hash: apply.document_hash,
  };
}

export async function applyOutcome(db: Db, applyId: string): Promise<ApplyOutcome | undefined> {
  const apply = await Apply.query(db).findById(applyId);
  if (!apply) return undefined;
  const document = (await Document.query(db).findById(apply.document_id))!;
  return outcomeOf(apply, document, await signersOf(db, document.id));
}
