// Making an apply (steps 5–8 of SPEC's procedure): stamp and seal outside any transaction, then commit the
// revision, audit lines and events under a row lock; the last signer's apply also certifies the completion.
// Its checks are apply-check.ts, its rows apply-record.ts, its outcome as callers read it apply-outcome.ts,
// who signs and what the signature records (audit line, event) apply-signed.ts.
import { ApiKey, Apply, Document, DocumentRevision, DocumentSigner, Mandate } from '../../db/models';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { applies } from '../../lib/metrics';
import { readableImageKind } from '../../lib/pdf/image';
import { stampWidgets } from '../../lib/pdf/stamp';
import { signersOf } from '../documents/documents';
import { completionEvidence, trailEntry } from '../documents/evidence';
import { pdfStep } from '../documents/pdf-errors';
import { credentialsOf } from '../mandates/credentials';
import { receiptSigner } from '../receipts/receipts';
import { checkApplicable, checkMandateInForce, widgetsOf } from './apply-check';
import type { ApplyDeps, Progress } from './apply-deps';
import { type ApplyOutcome, outcomeOf } from './apply-outcome';
import { rejectApply } from './apply-record';
import { methodOf, recordSigned, type SigningIdentity, signedAuditEntry, signingIdentity } from './apply-signed';
import { type Certified, certificateEntry, certificateSigner, certify, completionTrail, recordCompletion, sha256Hex } from './complete';

/** Milliseconds spent per stage of one apply, for the log and the benchmark's timeline. */
function stageClock() {
  const spent: Record<string, number> = {};
  let last = performance.now();
  return {
    spent,
    mark(stage: string) {
      const now = performance.now();
      spent[stage] = Math.round(((spent[stage] ?? 0) + now - last) * 10) / 10;
      last = now;
    },
  };
}

async function pause(ms: number, progress: Progress, log: ApplyDeps['log']): Promise<void> {
  // Said once in the log: a test watches for it to know the apply is in flight on this worker.
  log?.warn('apply paused by a test fault', { ms });
  for (let waited = 0; waited < ms; waited += 200) {
    progress('pausing (a fault injected by a test)');
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, ms - waited)));
  }
}

/** The PDFs an apply commits: the stamped and sealed revision, and for the last signer the certified one. */
interface ApplyPdfs {
  stamped: Uint8Array;
  sealed: Uint8Array;
  /** The completion the last signature makes, and its receipt (the PDF carries it). */
  completion?: Certified & { receiptJws: string };
}

/** `committed`: this call made the apply (not one that found it already ended). */
type Commit = { kind: 'done'; outcome: ApplyOutcome; committed?: boolean } | { kind: 'conflict' };

/**
 * Steps 5–8 of the apply procedure, idempotent by apply id: records pre_sign_hash, stamps the
 * appearance on the signer's widgets and seals; for the last signer it also appends the completion
 * certificate and seals again, so a failure there rejects this apply instead of wedging the
 * document. The revision(s), audit lines and events commit in one transaction. The PDF work happens
 * outside it; the commit checks under a row lock that no other revision landed meanwhile, and
 * redoes the work if one did.
 */
export async function applySignature(deps: ApplyDeps, applyId: string, progress: Progress = () => undefined): Promise<ApplyOutcome> {
  const clock = stageClock();
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const apply = await Apply.query(deps.db).findById(applyId);
    if (!apply) throw errors.notFound(t('errors.documents.no_apply', { applyId }));
    const document = (await Document.query(deps.db).findById(apply.document_id))!;
    const signers = await signersOf(deps.db, document.id);
    if (apply.status !== 'pending') return outcomeOf(apply, document, signers);
    const signer = signers.find((s) => s.id === apply.signer_id)!;
    let identity: SigningIdentity;
    try {
      checkApplicable(document, signers, signer, apply.input);
      if (apply.mandate_id) await checkMandateInForce(deps.db, apply.mandate_id);
      identity = await signingIdentity(deps.db, apply, signer);
    } catch (error) {
      if (error instanceof ServiceError) return (await rejectApply(deps.db, apply.id, error))!;
      throw error;
    }
    const signatureImage = await deps.blobs.get(apply.signature_sha256!);
    if (!(await readableImageKind(signatureImage))) {
      return (await rejectApply(deps.db, apply.id, errors.missingAppearance(t('errors.documents.stored_signature_unreadable'))))!;
    }
    const current = (await DocumentRevision.query(deps.db).findById([document.id, document.current_revision]))!;
    const signedAt = new Date();
    const completing = signers.every((other) => other.id === signer.id || other.status === 'signed');
    // The agent the audit line and the event name, read once and outside the commit's transaction (its
    // row locks are held no longer than its writes); the completion's attached trail names it too.
    const agent = apply.api_key_id ? await ApiKey.query(deps.db).findById(apply.api_key_id) : undefined;
    let pdfs: ApplyPdfs;
    try {
      progress('reading the current PDF from the blob store');
      const unsealed = await deps.blobs.get(current.unsealed_sha256);
      clock.mark('load');
      progress('stamping the fields');
      pdfs = await pdfStep(async () => {
        const stamped = await stampWidgets(unsealed, {
          widgets: widgetsOf(document, signer),
          signer: { name: identity.name, email: identity.email },
          signedAt,
          signatureImage,
          initialsImage: apply.initials_sha256 ? await deps.blobs.get(apply.initials_sha256) : undefined,
          values: apply.input.values,
        });
        progress('sealing the stamped PDF (PAdES signature, timestamp authority)');
        clock.mark('stamp');
        const sealed = await (await deps.sealer()).seal(stamped, { reason: `Signed by ${identity.name}`, signedAt });
        clock.mark('seal');
        if (!completing) return { stamped, sealed };
        progress('certifying the completed document (certificate page, audit trail, seal)');
        const entries = signers.map((other) =>
          other.id === signer.id
            ? certificateEntry({
                ...identity,
                signedAt,
                method: methodOf(apply),
                mandateId: apply.mandate_id,
                level: apply.confirmation_level,
              })
            : certificateSigner(other),
        );
        const signedSha256 = sha256Hex(sealed);
        const credentials = await credentialsOf(deps.db, [apply.mandate_id, ...signers.map((other) => other.mandate_id)]);
        const signed = {
          signedAt,
          method: methodOf(apply),
          preSignHash: document.current_sha256,
          documentHash: signedSha256,
          revision: document.current_revision + 1,
        };
        const evidence = await completionEvidence(deps, document, {
          signers: signers.map((other) =>
            other.id === signer.id
              ? {
                  principal: { email: identity.email, name: identity.name },
                  method: signed.method,
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
            trailEntry(
              signedAuditEntry({
                signer,
                apply,
                identity,
                signed,
                agent,
              }),
              signedAt,
            ),
            completionTrail(signedAt, signedSha256),
          ],
        });
        const completion = await certify(deps, stamped, {
          document,
          signers: entries,
          signedSha256,
          completedAt: signedAt,
          evidence,
        });
        clock.mark('certify');
        return { stamped, sealed, completion: { ...completion, receiptJws: evidence.receiptJws } };
      });
    } catch (error) {
      // A failure of the PDF step is final for this input: the apply is rejected, not retried; a
      // dependency that is down (the timestamp authority) is retried within the apply's budget.
      if (error instanceof ServiceError && error.code !== 'service_unavailable') return (await rejectApply(deps.db, apply.id, error))!;
      throw error;
    }
    progress('storing the signed PDFs in the blob store');
    // The revisions are stored side by side (each is content-addressed: the order does not matter).
    const [unsealedSha256, sealedSha256, completedUnsealed, completedSealed] = await Promise.all([
      deps.blobs.put(pdfs.stamped),
      deps.blobs.put(pdfs.sealed),
      pdfs.completion && deps.blobs.put(pdfs.completion.unsealed),
      pdfs.completion && deps.blobs.put(pdfs.completion.sealed),
    ]);
    const completion = pdfs.completion && {
      unsealed: completedUnsealed!,
      sealed: completedSealed!,
      receiptJws: pdfs.completion.receiptJws,
    };
    clock.mark('store');
    if (deps.faults?.applyPauseMs) await pause(deps.faults.applyPauseMs, progress, deps.log);
    progress('committing the revision (database: the document row lock, audit and events)');

    const commit: Commit = await deps.db.transaction(async (trx): Promise<Commit> => {
      const locked = (await Document.query(trx).findById(document.id).forUpdate())!;
      const lockedApply = (await Apply.query(trx).findById(apply.id).forUpdate())!;
      // Every signer of the document in one statement: this one is locked for its change, the others
      // give the outcome's all_signed and the completion's list without reading them again.
      const lockedSigners = await DocumentSigner.query(trx).where({ document_id: document.id }).orderBy('position').forUpdate();
      if (lockedApply.status !== 'pending') return { kind: 'done', outcome: outcomeOf(lockedApply, locked, lockedSigners) };
      if (locked.current_revision !== document.current_revision || locked.status !== document.status) return { kind: 'conflict' };
      const lockedSigner = lockedSigners.find((s) => s.id === signer.id);
      if (lockedSigner?.status !== 'pending') return { kind: 'conflict' };
      // A revoke commits under the mandate's row lock: either it lands first and this apply stops, or after.
      const mandate = apply.mandate_id ? await Mandate.query(trx).findById(apply.mandate_id).forShare() : undefined;
      if (apply.mandate_id && !mandate?.isInForce()) return { kind: 'conflict' };
      const revision = locked.current_revision + 1;
      const preSignHash = locked.current_sha256;
      await DocumentRevision.query(trx).insert({
        document_id: document.id,
        revision,
        kind: 'apply',
        sealed_sha256: sealedSha256,
        unsealed_sha256: unsealedSha256,
        apply_id: apply.id,
      });
      await locked.$query(trx).patch({ current_revision: revision, current_sha256: sealedSha256 });
      await lockedSigner.$query(trx).patch({
        status: 'signed',
        signed_at: signedAt,
        signed_name: identity.name,
        signed_email: identity.email,
        method: methodOf(apply),
        mandate_id: apply.mandate_id,
        confirmation_level: apply.confirmation_level,
        pre_sign_hash: preSignHash,
        document_hash: sealedSha256,
      });
      const made = { status: 'applied' as const, pre_sign_hash: preSignHash, document_hash: sealedSha256, revision, applied_at: signedAt };
      const applied = lockedApply;
      await applied.$query(trx).patch(made);
      await recordSigned(trx, {
        document: locked,
        signer: lockedSigner,
        apply: applied,
        identity,
        agent,
        credential: mandate?.credential_jws ?? null,
      });
      if (completion) {
        await recordCompletion(trx, locked, lockedSigners, {
          revision: revision + 1,
          unsealedSha256: completion.unsealed,
          sealedSha256: completion.sealed,
          completedAt: signedAt,
          receiptJws: completion.receiptJws,
        });
      }
      // The rows as written (the patches above set them on the locked instances too): nothing read back.
      return { kind: 'done', committed: true, outcome: outcomeOf(applied, locked, lockedSigners) };
    });
    clock.mark('commit');
    if (commit.kind === 'done') {
      if (commit.committed) applies.inc({ outcome: 'applied', code: '' });
      deps.log?.debug('apply timings', { apply_id: applyId, document_id: document.id, attempt, ms: clock.spent });
      if (deps.faults?.applyPauseAfterCommitMs) await pause(deps.faults.applyPauseAfterCommitMs, progress, deps.log);
      return commit.outcome;
    }
  }
  throw new Error(`apply ${applyId}: the document kept changing; giving up for this attempt`);
}
