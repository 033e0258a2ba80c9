// The last of an apply's three steps (apply.ts): one transaction under the document's, the apply's and
// the signers' row locks (and a share lock on the mandate, which a revoke takes for update). The
// checks whose answer can have changed since the request recorded the apply run here, once, on the
// rows as locked: a refusal ends the apply rejected with the rule's code in this same transaction.
import { Apply, Document, DocumentRevision, DocumentSigner, Mandate } from '../../db/models';
import { type Write, writeAsOne } from '../../db/one-statement';
import { ServiceError } from '../../lib/errors';
import { checkMandateInForce, checkSignableNow } from './apply-check';
import type { ApplyDeps } from './apply-deps';
import type { ApplyPlan } from './apply-load';
import { type ApplyOutcome, outcomeOf } from './apply-outcome';
import { rejectLocked } from './apply-record';
import type { RenderedApply } from './apply-render';
import { methodOf, signedWrites } from './apply-signed';
import { recordCompletion } from './complete';
import { announceSettled, settledNotice } from './settled-notices';

/**
 * `done`: the apply ended (`ended` says how when this commit ended it, not an earlier one);
 * `stale`: the checks pass, but another revision landed since the load (or the load rendered
 * nothing): the signature must be rendered again on the document as it is now.
 */
export type Commit = { kind: 'done'; outcome: ApplyOutcome; ended?: 'applied' | 'rejected' } | { kind: 'stale' };

/**
 * Commits the rendered apply as the document's next revision, with the signer's row, the audit
 * lines and events (and the completion, for the last signer), or rejects it when a check refuses it
 * now. `rendered` is undefined when the plan rendered nothing (the load found the document left sent):
 * the checks then reject it.
 */
export async function commitApply(deps: ApplyDeps, plan: ApplyPlan, rendered: RenderedApply | undefined): Promise<Commit> {
  const { apply, signer } = plan;
  return deps.db.transaction(async (trx): Promise<Commit> => {
    const document = (await Document.query(trx).findById(apply.document_id).forUpdate())!;
    const locked = (await Apply.query(trx).findById(apply.id).forUpdate())!;
    // Every signer of the document in one statement: this one is locked for its change, the others
    // give the outcome's all_signed and the completion's list without reading them again.
    const signers = await DocumentSigner.query(trx).where({ document_id: document.id }).orderBy('position').forUpdate();
    if (locked.status !== 'pending') return { kind: 'done', outcome: outcomeOf(locked, document, signers) };
    const lockedSigner = signers.find((s) => s.id === signer.id)!;
    // A revoke commits under the mandate's row lock: either it lands first and this apply stops, or after.
    const mandate = apply.mandate_id ? await Mandate.query(trx).findById(apply.mandate_id).forShare() : undefined;
    try {
      checkSignableNow(document, signers, lockedSigner, apply.input);
      if (apply.mandate_id) checkMandateInForce(mandate);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      await rejectLocked(trx, locked, error);
      const outcome = outcomeOf(locked, document, signers);
      await announceSettled(trx, outcome);
      return { kind: 'done', ended: 'rejected', outcome };
    }
    if (!rendered || plan.renders === false || document.current_revision !== plan.document.current_revision) return { kind: 'stale' };
    const revision = document.current_revision + 1;
    const preSignHash = document.current_sha256;
    const { signedAt, identity } = plan;
    const documentPatch = { current_revision: revision, current_sha256: rendered.sealedSha256 };
    const signerPatch = {
      status: 'signed' as const,
      signed_at: signedAt,
      signed_name: identity.name,
      signed_email: identity.email,
      method: methodOf(apply),
      mandate_id: apply.mandate_id,
      confirmation_level: apply.confirmation_level,
      pre_sign_hash: preSignHash,
      document_hash: rendered.sealedSha256,
    };
    const applyPatch = {
      status: 'applied' as const,
      pre_sign_hash: preSignHash,
      document_hash: rendered.sealedSha256,
      revision,
      applied_at: signedAt,
    };
    // The locked rows as they are written: the audit line, the event and the outcome read them.
    Object.assign(document, documentPatch);
    Object.assign(lockedSigner, signerPatch);
    Object.assign(locked, applyPatch);
    // The revision, the three rows, the audit line and the event: one statement (one round trip).
    const writes: Write[] = [
      trx(DocumentRevision.tableName).insert({
        document_id: document.id,
        revision,
        kind: 'apply',
        sealed_sha256: rendered.sealedSha256,
        unsealed_sha256: rendered.unsealedSha256,
        apply_id: apply.id,
      }),
      trx(Document.tableName).where({ id: document.id }).update(documentPatch),
      trx(DocumentSigner.tableName).where({ id: lockedSigner.id }).update(signerPatch),
      trx(Apply.tableName).where({ id: locked.id }).update(applyPatch),
      ...signedWrites(trx, {
        document,
        signer: lockedSigner,
        apply: locked,
        identity,
        agent: plan.agent,
        credential: mandate?.credential_jws ?? null,
      }),
    ];
    if (!rendered.completion) {
      const outcome = outcomeOf(locked, document, signers);
      // Heard by the request waiting for it as this transaction commits (settled-notices.ts).
      await writeAsOne(trx, writes, settledNotice(trx, outcome));
      return { kind: 'done', ended: 'applied', outcome };
    }
    await writeAsOne(trx, writes);
    await recordCompletion(trx, document, signers, {
      revision: revision + 1,
      unsealedSha256: rendered.completion.unsealed,
      sealedSha256: rendered.completion.sealed,
      completedAt: signedAt,
      receiptJws: rendered.completion.receiptJws,
    });
    // The rows as written (the patches above set them on the locked instances too): nothing read back.
    const outcome = outcomeOf(locked, document, signers);
    await announceSettled(trx, outcome);
    return { kind: 'done', ended: 'applied', outcome };
  });
}
