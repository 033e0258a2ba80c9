// The first of an apply's three steps (apply.ts): what it is made of, read without a lock and without
// the rules (the request checked them when it recorded the apply, and the commit checks again what can
// have changed since, under its row locks: apply-commit.ts).
import { ApiKey, Apply, Document, DocumentRevision, type DocumentSigner, type Mandate } from '../../db/models';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { readableImageKind } from '../../lib/pdf/image';
import { signersOf } from '../documents/documents';
import type { ApplyDeps, Progress } from './apply-deps';
import { type ApplyOutcome, outcomeOf } from './apply-outcome';
import { rejectApply } from './apply-record';
import { type SigningIdentity, signingIdentity } from './apply-signed';

/** An apply's rows as read before the PDF work. */
interface ApplyRows {
  apply: Apply;
  /** The document as read: the render stamps its current revision; the commit lands only on that revision. */
  document: Document;
  signers: DocumentSigner[];
  signer: DocumentSigner;
  /** Whether this signature is the last one: the render also certifies the completion. */
  completing: boolean;
  /** The time the signature carries: stamped, sealed, certified and committed. */
  signedAt: Date;
  /** The agent the audit line and the event name (read here: the commit's locks are held no longer than its writes). */
  agent: ApiKey | undefined;
}

/**
 * What an apply renders (apply-render.ts) and commits (apply-commit.ts). `renders` is false when the
 * document has left sent or the signer is no longer pending (an apply queued behind a void or a
 * decline): nothing is stamped then, and the commit's checks reject the apply with the rule's code
 * rather than whatever a PDF step would say about a document nobody may sign.
 */
export type ApplyPlan =
  | (ApplyRows & { renders: false })
  | (ApplyRows & {
      renders: true;
      identity: SigningIdentity;
      /** The mandate of an apply by mandate, as read for its identity (the render attaches its credential). */
      mandate: Mandate | undefined;
      signatureImage: Uint8Array;
      initialsImage: Uint8Array | undefined;
      /** The current revision's unsealed PDF, which the signature is stamped on. */
      pdf: Uint8Array;
    });

/** A plan with a signature to render. */
export type RenderPlan = Extract<ApplyPlan, { renders: true }>;

/**
 * Reads an apply's rows, and when there is a signature to render, who signs, the images and the
 * current PDF. An apply that already ended is its outcome; one whose signature cannot be drawn (the
 * principal behind its mandate is gone, its stored image unreadable) is rejected here, since nothing
 * could render it. Throws not_found for an unknown apply id.
 */
export async function loadApply(
  deps: ApplyDeps,
  applyId: string,
  progress: Progress,
): Promise<{ plan: ApplyPlan } | { outcome: ApplyOutcome }> {
  const apply = await Apply.query(deps.db).findById(applyId);
  if (!apply) throw errors.notFound(t('errors.documents.no_apply', { applyId }));
  // Side by side (on PostgreSQL's pool; PGlite takes them in turn): none depends on another.
  const [document, signers, agent] = await Promise.all([
    Document.query(deps.db).findById(apply.document_id),
    signersOf(deps.db, apply.document_id),
    apply.api_key_id && apply.status === 'pending' ? ApiKey.query(deps.db).findById(apply.api_key_id) : undefined,
  ]);
  if (!document) throw errors.notFound(t('errors.documents.no_such_document'));
  if (apply.status !== 'pending') return { outcome: outcomeOf(apply, document, signers) };
  const signer = signers.find((s) => s.id === apply.signer_id)!;
  const rows: ApplyRows = {
    apply,
    document,
    signers,
    signer,
    completing: signers.every((other) => other.id === signer.id || other.status === 'signed'),
    signedAt: new Date(),
    agent,
  };
  if (document.status !== 'sent' || signer.status !== 'pending') return { plan: { ...rows, renders: false } };
  const [who, current] = await Promise.all([
    signingIdentity(deps.db, apply, signer).then(
      (found) => found,
      (error: unknown) => ({ error }),
    ),
    DocumentRevision.query(deps.db).findById([document.id, document.current_revision]),
  ]);
  if ('error' in who) {
    if (who.error instanceof ServiceError) return { outcome: (await rejectApply(deps.db, apply.id, who.error))! };
    throw who.error;
  }
  const { identity, mandate } = who;
  progress('reading the current PDF and the appearance from the blob store');
  const [signatureImage, initialsImage, pdf] = await Promise.all([
    deps.blobs.get(apply.signature_sha256!),
    apply.initials_sha256 ? deps.blobs.get(apply.initials_sha256) : undefined,
    deps.blobs.get(current!.unsealed_sha256),
  ]);
  if (!(await readableImageKind(signatureImage))) {
    const unreadable = errors.missingAppearance(t('errors.documents.stored_signature_unreadable'));
    return { outcome: (await rejectApply(deps.db, apply.id, unreadable))! };
  }
  return { plan: { ...rows, renders: true, identity, mandate, signatureImage, initialsImage, pdf } };
}
