// Anyone can verify a PDF: its signatures and timestamps are checked cryptographically (off the
// event loop, under the intake's limits), and a file that is byte for byte a revision this service
// issued is named, with who signed it and how. Signer data is shown only for such an exact match:
// the caller then already holds the PDF that names them.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/connect';
import { Apply, Document, DocumentRevision, DocumentSigner, Offer } from '../../db/models';
import type { SignatureCheck } from '../../lib/pdf/pades/inspect';
import { pdfStep } from '../documents/pdf-errors';

export interface VerifiedSignature {
  kind: SignatureCheck['kind'];
  subfilter: string;
  /** When it was signed: its timestamp's time, else the time its dictionary claims (not proven). */
  signed_at: string | null;
  signer: string | null;
  timestamp: { time: string; tsa: string; valid: boolean } | null;
  covers_whole_document: boolean;
  valid: boolean;
  problem: string | null;
}

export interface VerifiedSigner {
  name: string;
  email: string;
  how: 'browser' | 'l1' | 'l2' | 'offer';
  mandate_id: string | null;
  level: 'L1' | 'L2' | null;
  signed_at: string;
}

export interface VerifyReport {
  valid: boolean;
  sha256: string;
  issued_by_this_service: boolean;
  document_id: string | null;
  revision: number | null;
  completed: boolean;
  signatures: VerifiedSignature[];
  signers: VerifiedSigner[];
  modified_after_seal: boolean;
  /** Why it is not valid, in words (empty when it is). */
  problems: string[];
}

/** A signature as the verifier reads it (its timestamp token not needed). */
type Checked = Omit<SignatureCheck, 'timestamp'> & { timestamp?: Omit<NonNullable<SignatureCheck['timestamp']>, 'token'> };

/** Reads a PDF's signatures (lib/pdf/pades/inspect.ts), off the caller's event loop. */
export type InspectSignatures = (pdf: Uint8Array) => Promise<Checked[]>;

export async function verifyPdf(deps: { db: Db; inspect: InspectSignatures }, pdf: Uint8Array): Promise<VerifyReport> {
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  const [checks, issued] = await Promise.all([pdfStep(() => deps.inspect(pdf)), issuedRevision(deps.db, sha256)]);
  const signatures = checks.map(presentSignature);
  const last = checks.at(-1);
  const modifiedAfterSeal = last !== undefined && !last.coversWholeDocument;
  const problems: string[] = [];
  if (checks.length === 0) problems.push('The PDF carries no digital signature.');
  checks.forEach((check, index) => {
    if (!check.valid) problems.push(`Signature ${index + 1} (${check.kind}) is not valid: ${check.problem ?? 'it does not verify'}.`);
    else if (check.timestamp && !check.timestamp.valid) problems.push(`Signature ${index + 1} has a timestamp that does not verify.`);
  });
  if (modifiedAfterSeal) problems.push('Bytes were added after the last signature: the file was changed after it was sealed.');
  return {
    valid: problems.length === 0,
    sha256,
    issued_by_this_service: issued !== undefined,
    document_id: issued?.document.id ?? null,
    revision: issued?.revision.revision ?? null,
    completed: issued?.revision.kind === 'completion',
    signatures,
    signers: issued ? await signersAt(deps.db, issued.document, issued.revision.revision) : [],
    modified_after_seal: modifiedAfterSeal,
    problems,
  };
}

function presentSignature(check: Checked): VerifiedSignature {
  const signedAt = check.timestamp?.valid ? check.timestamp.time : check.claimedTime;
  return {
    kind: check.kind,
    subfilter: check.subfilter,
    signed_at: signedAt?.toISOString() ?? null,
    signer: check.signer ?? null,
    timestamp: check.timestamp
      ? { time: check.timestamp.time.toISOString(), tsa: check.timestamp.tsa, valid: check.timestamp.valid }
      : null,
    covers_whole_document: check.coversWholeDocument,
    valid: check.valid && (check.timestamp?.valid ?? true),
    problem: check.problem ?? null,
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
  return applies.map((apply) => {
    const signer = signers.get(apply.signer_id)!;
    const level = apply.confirmation_level ? (apply.confirmation_level.toUpperCase() as 'L1' | 'L2') : null;
    return {
      name: signer.signed_name ?? signer.name,
      email: signer.signed_email ?? signer.email,
      how: offers.has(apply.id) ? 'offer' : apply.kind === 'browser' ? 'browser' : level === 'L1' ? 'l1' : 'l2',
      mandate_id: apply.mandate_id,
      level,
      signed_at: (apply.applied_at ?? signer.signed_at!).toISOString(),
    };
  });
}
