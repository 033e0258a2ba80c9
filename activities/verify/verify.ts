// Anyone can verify a PDF: the verifier (lib/pdf/verify) judges every signature like a relying party's
// validator, and a file that is byte for byte a revision this service issued is named, with who signed
// it and how. Signer data is shown only for such an exact match: the caller then already holds the PDF
// that names them.
import type { Db } from '../../db/connect';
import { Apply, Document, DocumentRevision, DocumentSigner, Mandate, type MandatePolicy, type MandateState, Offer } from '../../db/models';
import type { SignatureReport, TimestampReport, VerificationReport } from '../../lib/pdf/verify/report';
import { pdfStep } from '../documents/pdf-errors';

export interface VerifiedSigner {
  name: string;
  email: string;
  how: 'browser' | 'l1' | 'l2' | 'offer';
  mandate_id: string | null;
  level: 'L1' | 'L2' | null;
  signed_at: string;
  /** For a signature by mandate: its policy, what it was checked against, and the mandate's status then and now. */
  mandate: VerifiedMandate | null;
}

export interface VerifiedMandate {
  id: string;
  policy: MandatePolicy | null;
  /** The constraints this signature was checked against and kept to (an L2 apply; an L1 one was the principal's own confirmation). */
  policy_checked: string[];
  /** An apply out of policy is refused, never signed: a signature by mandate was in policy. */
  in_policy: true;
  /** In force when it signed: the service checks the mandate under its row lock as it commits each signature. */
  status_then: 'active';
  status_now: MandateState;
  credential_id: string | null;
}

/** A signature as the API reports it: the verifier's judgement, with the short answers of earlier versions beside it. */
export type VerifiedSignature = Omit<SignatureReport, 'timestamp'> & {
  /** The trusted time, else the time its dictionary claims (not proven). */
  signed_at: string | null;
  timestamp: (TimestampReport & { valid: boolean }) | null;
  covers_whole_document: boolean;
  /** Its indication is TOTAL-PASSED. */
  valid: boolean;
};

export type VerifyReport = Omit<VerificationReport, 'signatures' | 'modified_after_last_signature'> & {
  /** The verdict is `valid`. */
  valid: boolean;
  issued_by_this_service: boolean;
  document_id: string | null;
  revision: number | null;
  completed: boolean;
  signatures: VerifiedSignature[];
  signers: VerifiedSigner[];
  modified_after_seal: boolean;
};

/**
 * Verifies a PDF (lib/pdf/verify, in the verify lane) and names the revision this service issued
 * when the bytes are exactly one. The bytes move to the verifier: the caller must not read them after.
 */
export async function verifyPdf(
  deps: { db: Db; verify: (pdf: Uint8Array) => Promise<VerificationReport> },
  pdf: Uint8Array,
): Promise<VerifyReport> {
  const { signatures, modified_after_last_signature, ...report } = await pdfStep(() => deps.verify(pdf));
  const issued = await issuedRevision(deps.db, report.sha256);
  return {
    ...report,
    valid: report.verdict === 'valid',
    issued_by_this_service: issued !== undefined,
    document_id: issued?.document.id ?? null,
    revision: issued?.revision.revision ?? null,
    completed: issued?.revision.kind === 'completion',
    signatures: signatures.map(presentSignature),
    signers: issued ? await signersAt(deps.db, issued.document, issued.revision.revision) : [],
    modified_after_seal: modified_after_last_signature,
  };
}

function presentSignature(signature: SignatureReport): VerifiedSignature {
  return {
    ...signature,
    signed_at: signature.trusted_time ?? signature.claimed_time,
    timestamp: signature.timestamp ? { ...signature.timestamp, valid: signature.timestamp.indication === 'TOTAL-PASSED' } : null,
    covers_whole_document: signature.coverage === 'whole_file',
    valid: signature.indication === 'TOTAL-PASSED',
  };
}

/** The revision this service sealed with exactly these bytes, if any. */
async function issuedRevision(db: Db, sha256: string): Promise<{ revision: DocumentRevision; document: Document } | undefined> {
  const revision = await DocumentRevision.query(db).where({ sealed_sha256: sha256 }).orderBy('revision', 'desc').first();
  if (!revision) return undefined;
  const document = await Document.query(db).findById(revision.document_id);
  return document ? { revision, document } : undefined;
}

/** Who had signed the document by that revision, and how (never an agent or a key). */
async function signersAt(db: Db, document: Document, revision: number): Promise<VerifiedSigner[]> {
  const applies = await Apply.query(db)
    .where({ document_id: document.id, status: 'applied' })
    .where('revision', '<=', revision)
    .orderBy('revision');
  if (applies.length === 0) return [];
  const signers = new Map((await DocumentSigner.query(db).where({ document_id: document.id })).map((signer) => [signer.id, signer]));
  const offers = new Set(
    (
      await Offer.query(db)
        .whereIn(
          'apply_id',
          applies.map((apply) => apply.id),
        )
        .select('apply_id')
    ).map((offer) => offer.apply_id),
  );
  const mandateIds = [...new Set(applies.map((apply) => apply.mandate_id).filter((id): id is string => Boolean(id)))];
  const mandates = new Map((mandateIds.length ? await Mandate.query(db).whereIn('id', mandateIds) : []).map((row) => [row.id, row]));
  const now = new Date();
  return applies.map((apply) => {
    const signer = signers.get(apply.signer_id)!;
    const mandate = apply.mandate_id ? mandates.get(apply.mandate_id) : undefined;
    const level = apply.confirmation_level ? (apply.confirmation_level.toUpperCase() as 'L1' | 'L2') : null;
    return {
      name: signer.signed_name ?? signer.name,
      email: signer.signed_email ?? signer.email,
      how: offers.has(apply.id) ? 'offer' : apply.kind === 'browser' ? 'browser' : level === 'L1' ? 'l1' : 'l2',
      mandate_id: apply.mandate_id,
      level,
      signed_at: (apply.applied_at ?? signer.signed_at!).toISOString(),
      mandate: mandate
        ? {
            id: mandate.id,
            policy: mandate.policy ?? null,
            policy_checked: apply.input.policy_checked ?? [],
            in_policy: true,
            status_then: 'active',
            status_now: mandate.statusAt(now),
            credential_id: mandate.credential_id,
          }
        : null,
    };
  });
}
