// The mandate travels with the signature (issue 40, item 3): an apply by mandate attaches to the
// revision it makes, before that revision is sealed (so inside the signed bytes), the mandate's
// credential (the SD-JWT VC, whole) and a closed-mandate receipt for this one apply, signed by the
// receipt keys: which mandate, under which policy, checked against which constraints, on which
// document before and after the stamp, when. A relying party holding only the PDF checks both
// against the JWKS (docs/receipts.md).
import { createHash } from 'node:crypto';
import type { Apply, Document, Mandate } from '../../db/models';
import { t } from '../../lib/i18n';
import type { Attachment } from '../../lib/pdf/certificate';
import { PROTOCOL } from '../receipts/receipts';
import type { ApplyDeps } from './apply-deps';

/** The receipt's `receipt_type`, and the protected header's `typ`. */
export const MANDATE_RECEIPT_TYPE = 'mandate.applied';
export const MANDATE_RECEIPT_TYP = 'mandate-receipt+jwt';

/** The attachments' names in the PDF, per mandate and per apply (a document may carry several). */
export const credentialFileName = (mandateId: string) => `mandate-credential-${mandateId}.sd-jwt`;
export const receiptFileName = (applyId: string) => `mandate-receipt-${applyId}.jws`;

/**
 * The evidence an apply by mandate attaches to its revision, or none (a browser signature, or a
 * mandate granted before credentials). `stamped` is the revision's PDF as stamped, before the
 * attachments: its SHA-256 is the receipt's hash after.
 */
export async function mandateEvidence(
  deps: Pick<ApplyDeps, 'db' | 'receipts'>,
  input: { apply: Apply; document: Document; mandate: Mandate | undefined; stamped: Uint8Array; signedAt: Date },
): Promise<Attachment[]> {
  const { apply, document, mandate } = input;
  if (apply.kind !== 'mandate' || !apply.mandate_id) return [];
  const credential = mandate?.credential_jws;
  if (!mandate || !credential) return [];
  const receipt = await deps.receipts.sign(
    deps.db,
    {
      receipt_type: MANDATE_RECEIPT_TYPE,
      protocol: PROTOCOL,
      apply_id: apply.id,
      document_id: document.id,
      document_name: document.name,
      mandate_id: apply.mandate_id,
      confirmation_level: apply.confirmation_level,
      // The credential this apply was made under, by the digest of its issuer-signed JWT.
      credential_sha256: createHash('sha256').update(credential.split('~')[0]).digest('hex'),
      policy: mandate.policy ?? null,
      policy_checked: apply.input.policy_checked ?? [],
      in_policy: true,
      reason: apply.input.reason ?? null,
      pre_sign_hash: document.current_sha256,
      stamped_sha256: createHash('sha256').update(input.stamped).digest('hex'),
      signed_at: input.signedAt.toISOString(),
    },
    mandate.principal_id,
    MANDATE_RECEIPT_TYP,
  );
  return [
    {
      name: credentialFileName(apply.mandate_id),
      mimeType: 'application/dc+sd-jwt',
      description: t('certificate.attachment.mandateCredential', { mandate: apply.mandate_id }),
      bytes: Buffer.from(credential),
    },
    {
      name: receiptFileName(apply.id),
      mimeType: 'application/jose',
      description: t('certificate.attachment.mandateReceipt', { apply: apply.id, mandate: apply.mandate_id }),
      bytes: Buffer.from(receipt),
    },
  ];
}
