// The second of an apply's three steps (apply.ts): the PDF work, outside any transaction. It stamps the
// signer's widgets on the current revision and seals it; the last signer's apply also certifies the
// completion (certificate page, attached trail, seal), so a failure there rejects that apply instead of
// wedging the document. The PDFs are stored before the commit names them.
import { attachFiles } from '../../lib/pdf/certificate';
import { stampWidgets } from '../../lib/pdf/stamp';
import { completionEvidence, trailEntry } from '../documents/evidence';
import { pdfStep } from '../documents/pdf-errors';
import { credentialsOf } from '../mandates/credentials';
import { receiptSigner } from '../receipts/receipts';
import { widgetsOf } from './apply-check';
import type { ApplyDeps, Progress } from './apply-deps';
import type { RenderPlan } from './apply-load';
import { methodOf, signedAuditEntry } from './apply-signed';
import { type Certified, certificateEntry, certificateSigner, certify, completionTrail, sha256Hex } from './complete';
import { mandateEvidence } from './mandate-evidence';

/** The stored PDFs of an apply, by their blob hashes: the stamped and sealed revision, and for the last signer the certified one. */
export interface RenderedApply {
  unsealedSha256: string;
  sealedSha256: string;
  /** The completion the last signature makes, and its receipt (the PDF carries it). */
  completion?: { unsealed: string; sealed: string; receiptJws: string };
}

/** Where the render says what it does (the heartbeat's detail) and when each stage ends (the timings log). */
export interface RenderWatch {
  progress: Progress;
  mark(stage: 'stamp' | 'seal' | 'certify' | 'store'): void;
}

/**
 * Stamps, seals and (for the last signer) certifies the plan's signature, then stores the PDFs. A
 * failure of a PDF step is a ServiceError (pdfStep): final for this input, except service_unavailable
 * (the timestamp authority down), which the caller leaves to the apply's retries.
 */
export async function renderApply(deps: ApplyDeps, plan: RenderPlan, watch: RenderWatch): Promise<RenderedApply> {
  const { progress, mark } = watch;
  const pdfs = await pdfStep(async () => {
    progress('stamping the fields');
    const drawn = await stampWidgets(plan.pdf, {
      widgets: widgetsOf(plan.document, plan.signer),
      signer: { name: plan.identity.name, email: plan.identity.email },
      signedAt: plan.signedAt,
      signatureImage: plan.signatureImage,
      initialsImage: plan.initialsImage,
      values: plan.apply.input.values,
    });
    // By mandate: its credential and this apply's receipt go inside the bytes the seal covers.
    const evidence = await mandateEvidence(deps, {
      apply: plan.apply,
      document: plan.document,
      mandate: plan.mandate,
      stamped: drawn,
      signedAt: plan.signedAt,
    });
    const stamped = evidence.length > 0 ? await attachFiles(drawn, evidence, plan.signedAt) : drawn;
    mark('stamp');
    progress('sealing the stamped PDF (PAdES signature, timestamp authority)');
    const sealed = await (await deps.sealer()).seal(stamped, { reason: `Signed by ${plan.identity.name}`, signedAt: plan.signedAt });
    mark('seal');
    if (!plan.completing) return { stamped, sealed };
    progress('certifying the completed document (certificate page, audit trail, seal)');
    const completion = await certifyCompletion(deps, plan, stamped, sealed);
    mark('certify');
    return { stamped, sealed, completion };
  });
  progress('storing the signed PDFs in the blob store');
  // The revisions are stored side by side (each is content-addressed: the order does not matter).
  const [unsealedSha256, sealedSha256, completedUnsealed, completedSealed] = await Promise.all([
    deps.blobs.put(pdfs.stamped),
    deps.blobs.put(pdfs.sealed),
    pdfs.completion && deps.blobs.put(pdfs.completion.unsealed),
    pdfs.completion && deps.blobs.put(pdfs.completion.sealed),
  ]);
  mark('store');
  return {
    unsealedSha256,
    sealedSha256,
    ...(pdfs.completion
      ? { completion: { unsealed: completedUnsealed!, sealed: completedSealed!, receiptJws: pdfs.completion.receiptJws } }
      : {}),
  };
}

/**
 * The completed document the last signature makes: the certificate lists every signer (this one as
 * stamped, the others as they signed), and the attached trail and receipt already name this
 * signature and the completion, which the commit then writes.
 */
async function certifyCompletion(
  deps: ApplyDeps,
  plan: RenderPlan,
  stamped: Uint8Array,
  sealed: Uint8Array,
): Promise<Certified & { receiptJws: string }> {
  const { apply, document, signers, signer, identity, signedAt } = plan;
  const method = methodOf(apply);
  const entries = signers.map((other) =>
    other.id === signer.id
      ? certificateEntry({ ...identity, signedAt, method, mandateId: apply.mandate_id, level: apply.confirmation_level })
      : certificateSigner(other),
  );
  const signedSha256 = sha256Hex(sealed);
  const credentials = await credentialsOf(deps.db, [apply.mandate_id, ...signers.map((other) => other.mandate_id)]);
  const signed = {
    signedAt,
    method,
    preSignHash: document.current_sha256,
    documentHash: signedSha256,
    revision: document.current_revision + 1,
  };
  const evidence = await completionEvidence(deps, document, {
    signers: signers.map((other) =>
      other.id === signer.id
        ? {
            principal: { email: identity.email, name: identity.name },
            method,
            mandate_id: apply.mandate_id,
            confirmation_level: apply.confirmation_level,
            signed_at: signedAt.toISOString(),
            pre_sign_hash: signed.preSignHash,
            document_hash: signed.documentHash,
            mandate_credential: (apply.mandate_id && credentials.get(apply.mandate_id)) || null,
          }
        : receiptSigner(other, credentials),
    ),
    signedSha256,
    completedAt: signedAt,
    pending: [
      trailEntry(signedAuditEntry({ signer, apply, identity, signed, agent: plan.agent }), signedAt),
      completionTrail(signedAt, signedSha256),
    ],
  });
  const completion = await certify(deps, stamped, { document, signers: entries, signedSha256, completedAt: signedAt, evidence });
  return { ...completion, receiptJws: evidence.receiptJws };
}
