import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { isUniqueViolation } from '../../db/errors';
import {
  ApiKey,
  Apply,
  type ApplyInput,
  type ApplyKind,
  Document,
  DocumentRevision,
  DocumentSigner,
  Mandate,
  Principal,
} from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import type { Faults } from '../../lib/config/config';
import { errors, ServiceError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/log';
import { applies } from '../../lib/metrics';
import { readableImageKind } from '../../lib/pdf/image';
import type { Sealer } from '../../lib/pdf/seal';
import { stampWidgets } from '../../lib/pdf/stamp';
import { unfilledWidgets, type Widget } from '../../lib/pdf/widgets';
import type { ReceiptIssuer } from '../../lib/receipts';
import { type Actor, recordAudit } from '../audit/audit';
import { emitEvent } from '../events/outbox';
import { capReached, releaseL2, reserveL2 } from '../mandates/cap';
import { receiptSigner } from '../receipts/receipts';
import { maySignNow, waitingFor } from '../signers/turn';
import { type Certified, certificateEntry, certificateSigner, certify, completionTrail, recordCompletion, sha256Hex } from './complete';
import { signersOf } from './documents';
import { completionEvidence, trailEntry } from './evidence';
import { pdfStep } from './pdf-errors';

export interface ApplyDeps {
  db: Db;
  blobs: BlobStore;
  sealer(): Promise<Sealer>;
  /** Signs the dual-attestation receipt of a document the apply completes. */
  receipts: ReceiptIssuer;
  faults?: Faults;
  /** Where the apply's stage timings go (debug: `apply timings`, in milliseconds). */
  log?: Logger;
}

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

/** Called between the slow steps of an apply (a Temporal heartbeat when run as an activity). */
export type Progress = () => void;

export function widgetsOf(document: Document, signer: DocumentSigner): Widget[] {
  return document.widgets.filter((widget) => widget.role === signer.role);
}

/**
 * Steps 2–4 of SPEC's apply procedure that need no PDF: the document is sent and the signer has not
 * signed, strict order, a signature widget exists, and required widgets the appearance cannot fill
 * have values; for an offer's apply, the PDF is still the one the offer was bound to. The same check
 * runs before an apply is accepted and again when it is applied.
 */
export function checkApplicable(
  document: Document,
  signers: DocumentSigner[],
  signer: DocumentSigner,
  input: Pick<ApplyInput, 'values' | 'expected_sha256'>,
): void {
  if (signer.status === 'signed') throw errors.alreadySigned(`${signer.name} already signed this document.`);
  if (document.status !== 'sent') {
    const why = document.status === 'draft' ? 'it has not been sent yet' : `it is ${document.status}`;
    throw errors.invalidState(`This document cannot be signed: ${why}.`);
  }
  if (signer.status === 'declined') throw errors.invalidState(`${signer.name} declined this document.`);
  if (!maySignNow(document, signers, signer)) {
    const before = waitingFor(document, signers, signer);
    throw errors.strictOrder(`Strict signing order: ${before.map((s) => s.name).join(', ')} must sign first.`);
  }
  if (input.expected_sha256 && document.current_sha256 !== input.expected_sha256) {
    throw errors.documentChanged(
      `The document changed since the offer was made: its PDF is now ${document.current_sha256}, the offer was bound to ${input.expected_sha256}.`,
    );
  }
  const widgets = widgetsOf(document, signer);
  if (!widgets.some((widget) => widget.type === 'signature')) {
    throw errors.missingSignatureFields(`The document has no signature field for ${signer.name} (role ${signer.role}).`);
  }
  const unfilled = unfilledWidgets(widgets, input.values);
  if (unfilled.length > 0) {
    throw errors.unfilledFields(
      `Required fields are not filled: ${unfilled.map((w) => w.label ?? w.id).join(', ')}.`,
      unfilled.map((widget) => ({ path: `values.${widget.id}`, message: `required ${widget.type}` })),
    );
  }
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
    outcome.message ?? 'The signature could not be applied.',
  );
}

function outcomeOf(apply: Apply, document: Pick<Document, 'status'>, signers: DocumentSigner[]): ApplyOutcome {
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

export interface NewApply {
  signer: DocumentSigner;
  kind: ApplyKind;
  input: ApplyInput;
  signatureImage: Uint8Array;
  initialsImage?: Uint8Array;
  mandateId?: string;
  confirmationLevel?: 'l1' | 'l2';
  apiKeyId?: string;
  /** For an L2 apply: the UTC day whose cap slot it takes, in the transaction that records it. */
  capDay?: string;
  actor: Actor;
}

/**
 * Records an apply to be made (status pending) once the checks pass. One live apply per signer: a
 * second submission while one is pending joins it instead of stamping twice (and takes no second
 * L2 slot: the slot is taken with the row, in one transaction).
 */
export async function recordApply(deps: ApplyDeps, request: NewApply): Promise<Apply> {
  const document = await Document.query(deps.db).findById(request.signer.document_id);
  if (!document) throw errors.notFound('No such document.');
  const signers = await signersOf(deps.db, document.id);
  const signer = signers.find((s) => s.id === request.signer.id)!;
  checkApplicable(document, signers, signer, request.input);
  if (!(await readableImageKind(request.signatureImage))) {
    throw errors.missingAppearance('The signature image is not a readable PNG or JPEG.');
  }
  if (request.initialsImage && !(await readableImageKind(request.initialsImage))) {
    throw errors.missingAppearance('The initials image is not a readable PNG or JPEG.');
  }
  const signatureSha256 = await deps.blobs.put(request.signatureImage);
  const initialsSha256 = request.initialsImage ? await deps.blobs.put(request.initialsImage) : null;
  try {
    return await deps.db.transaction(async (trx) => {
      const apply = await Apply.query(trx).insertAndFetch({
        id: newId('apl'),
        tenant_id: document.tenant_id,
        document_id: document.id,
        signer_id: signer.id,
        kind: request.kind,
        status: 'pending',
        input: request.input,
        signature_sha256: signatureSha256,
        initials_sha256: initialsSha256,
        mandate_id: request.mandateId ?? null,
        confirmation_level: request.confirmationLevel ?? null,
        api_key_id: request.apiKeyId ?? null,
        cap_day: request.capDay ?? null,
        ip: request.actor.ip ?? null,
        user_agent: request.actor.userAgent?.slice(0, 500) ?? null,
      });
      if (request.capDay && request.mandateId && !(await reserveL2(trx, request.mandateId, request.capDay))) throw capReached();
      // The signer's row shows this apply from now on (GET /documents/:id: being applied, applied, or why not).
      await DocumentSigner.query(trx).findById(signer.id).patch({ last_apply_id: apply.id });
      await recordAudit(trx, {
        tenantId: document.tenant_id,
        documentId: document.id,
        actor: request.actor,
        action: 'signature.submitted',
        data: { apply_id: apply.id, signer_id: signer.id, kind: request.kind, appearance: request.input.appearance },
      });
      return apply;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const live = await Apply.query(deps.db).where({ signer_id: signer.id }).whereIn('status', ['pending', 'applied']).first();
    if (live?.status === 'applied') throw errors.alreadySigned(`${signer.name} already signed this document.`);
    if (live) return live;
    throw error;
  }
}

/** A mandate apply stops the moment its mandate is revoked or expires (SPEC: Mandate states). */
async function checkMandateInForce(db: Db, mandateId: string): Promise<void> {
  const mandate = await Mandate.query(db).findById(mandateId);
  if (!mandate?.isInForce()) throw errors.mandateInactive('The mandate was revoked or has expired.');
}

/** Who is signing, as stamped and certified, and the tenant whose webhooks hear of it. */
export interface SigningIdentity {
  name: string;
  email: string;
  /** The principal's tenant for an apply by a principal; the document's for a browser signer. */
  tenantId: string;
}

/**
 * An apply by a principal (under a mandate) carries the principal's registered name and e-mail,
 * never the name the agent typed for the signer row: that stays a label (SPEC Guarantee 1).
 */
async function signingIdentity(db: Db, apply: Apply, signer: DocumentSigner): Promise<SigningIdentity> {
  if (!apply.mandate_id) return { name: signer.name, email: signer.email, tenantId: signer.tenant_id };
  const mandate = await Mandate.query(db).findById(apply.mandate_id);
  const principal = mandate ? await Principal.query(db).findById(mandate.principal_id) : undefined;
  if (!principal) throw errors.mandateInactive('The mandate of this apply no longer exists.');
  return { name: principal.name, email: principal.email, tenantId: principal.tenant_id };
}

/**
 * Ends a pending apply as rejected, once; the L2 slot it holds is given back in the same
 * transaction, so a rejection seen by nobody (the caller stopped waiting) still frees it. The
 * rejection is never silent: `document.sign_failed` goes to the sender's webhooks (and to the
 * signing principal's tenant), and the signer's row shows the reason.
 */
export async function rejectApply(db: Db, applyId: string, error: ServiceError): Promise<ApplyOutcome | undefined> {
  const rejected = await db.transaction(async (trx) => {
    const apply = await Apply.query(trx).findById(applyId).forUpdate();
    if (apply?.status !== 'pending') return false;
    const rejectedAt = new Date();
    await apply.$query(trx).patch({ status: 'rejected', error_code: error.code, error_message: error.message, rejected_at: rejectedAt });
    if (apply.cap_day && apply.mandate_id) await releaseL2(trx, apply.mandate_id, apply.cap_day);
    await recordAudit(trx, {
      tenantId: apply.tenant_id,
      documentId: apply.document_id,
      actor: { type: 'system' },
      action: 'signature.rejected',
      data: { apply_id: apply.id, signer_id: apply.signer_id, code: error.code, message: error.message },
    });
    await emitSignFailed(trx, apply, error, rejectedAt);
    return true;
  });
  if (rejected) applies.inc({ outcome: 'rejected', code: error.code });
  return applyOutcome(db, applyId);
}

/** `document.sign_failed`: to the sender's tenant, and to the tenant of a principal who signed by mandate. */
async function emitSignFailed(trx: Knex.Transaction, apply: Apply, error: ServiceError, rejectedAt: Date): Promise<void> {
  const signer = (await DocumentSigner.query(trx).findById(apply.signer_id))!;
  const [agent, mandate] = await Promise.all([
    apply.api_key_id ? ApiKey.query(trx).findById(apply.api_key_id) : undefined,
    apply.mandate_id ? Mandate.query(trx).findById(apply.mandate_id) : undefined,
  ]);
  const data = {
    document_id: apply.document_id,
    signer_id: signer.id,
    apply_id: apply.id,
    signer: { email: signer.email, name: signer.name },
    agent: agent ? { api_key_id: agent.id, label: agent.label } : null,
    mandate_id: apply.mandate_id,
    confirmation_level: apply.confirmation_level,
    code: error.code,
    message: error.message,
    rejected_at: rejectedAt.toISOString(),
  };
  for (const tenantId of new Set([signer.tenant_id, mandate?.tenant_id ?? signer.tenant_id]))
    await emitEvent(trx, tenantId, 'document.sign_failed', data);
}

function methodOf(apply: Apply): string {
  return apply.kind === 'mandate' ? `mandate:${apply.confirmation_level ?? 'l2'}` : `browser:${apply.input.appearance}`;
}

async function pause(ms: number, progress: Progress): Promise<void> {
  for (let waited = 0; waited < ms; waited += 200) {
    progress();
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
    if (!apply) throw errors.notFound(`No apply ${applyId}.`);
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
      return (await rejectApply(deps.db, apply.id, errors.missingAppearance('The stored signature is not a readable PNG or JPEG.')))!;
    }
    const current = (await DocumentRevision.query(deps.db).findById([document.id, document.current_revision]))!;
    const signedAt = new Date();
    const completing = signers.every((other) => other.id === signer.id || other.status === 'signed');
    let pdfs: ApplyPdfs;
    try {
      const unsealed = await deps.blobs.get(current.unsealed_sha256);
      clock.mark('load');
      pdfs = await pdfStep(async () => {
        const stamped = await stampWidgets(unsealed, {
          widgets: widgetsOf(document, signer),
          signer: { name: identity.name, email: identity.email },
          signedAt,
          signatureImage,
          initialsImage: apply.initials_sha256 ? await deps.blobs.get(apply.initials_sha256) : undefined,
          values: apply.input.values,
        });
        progress();
        clock.mark('stamp');
        const sealed = await (await deps.sealer()).seal(stamped, { reason: `Signed by ${identity.name}`, signedAt });
        clock.mark('seal');
        if (!completing) return { stamped, sealed };
        progress();
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
                }
              : receiptSigner(other),
          ),
          signedSha256,
          completedAt: signedAt,
          pending: [
            trailEntry(await signedAuditEntry(deps.db, { signer, apply, identity, signed }), signedAt),
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
    progress();
    const [unsealedSha256, sealedSha256] = [await deps.blobs.put(pdfs.stamped), await deps.blobs.put(pdfs.sealed)];
    const completion = pdfs.completion && {
      unsealed: await deps.blobs.put(pdfs.completion.unsealed),
      sealed: await deps.blobs.put(pdfs.completion.sealed),
      receiptJws: pdfs.completion.receiptJws,
    };
    clock.mark('store');
    if (deps.faults?.applyPauseMs) await pause(deps.faults.applyPauseMs, progress);

    const commit: Commit = await deps.db.transaction(async (trx): Promise<Commit> => {
      const locked = (await Document.query(trx).findById(document.id).forUpdate())!;
      const lockedApply = (await Apply.query(trx).findById(apply.id).forUpdate())!;
      if (lockedApply.status !== 'pending')
        return { kind: 'done', outcome: outcomeOf(lockedApply, locked, await signersOf(trx, document.id)) };
      if (locked.current_revision !== document.current_revision || locked.status !== document.status) return { kind: 'conflict' };
      const lockedSigner = (await DocumentSigner.query(trx).findById(signer.id).forUpdate())!;
      if (lockedSigner.status !== 'pending') return { kind: 'conflict' };
      // A revoke commits under the mandate's row lock: either it lands first and this apply stops, or after.
      if (apply.mandate_id && !(await Mandate.query(trx).findById(apply.mandate_id).forShare())?.isInForce()) return { kind: 'conflict' };
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
      const applied = await lockedApply
        .$query(trx)
        .patchAndFetch({ status: 'applied', pre_sign_hash: preSignHash, document_hash: sealedSha256, revision, applied_at: signedAt });
      await recordSigned(trx, { document: locked, signer: lockedSigner, apply: applied, identity });
      const after = await signersOf(trx, document.id);
      if (completion) {
        const signed = await Document.query(trx).findById(document.id);
        await recordCompletion(trx, signed!, after, {
          revision: revision + 1,
          unsealedSha256: completion.unsealed,
          sealedSha256: completion.sealed,
          completedAt: signedAt,
          receiptJws: completion.receiptJws,
        });
      }
      return { kind: 'done', committed: true, outcome: outcomeOf(applied, (await Document.query(trx).findById(document.id))!, after) };
    });
    clock.mark('commit');
    if (commit.kind === 'done') {
      if (commit.committed) applies.inc({ outcome: 'applied', code: '' });
      deps.log?.debug('apply timings', { apply_id: applyId, document_id: document.id, attempt, ms: clock.spent });
      if (deps.faults?.applyPauseAfterCommitMs) await pause(deps.faults.applyPauseAfterCommitMs, progress);
      return commit.outcome;
    }
  }
  throw new Error(`apply ${applyId}: the document kept changing; giving up for this attempt`);
}

/** The facts of a signature the audit line records: when, how, and the hashes before and after it. */
interface SignedFacts {
  signedAt: Date;
  method: string;
  preSignHash: string;
  documentHash: string;
  revision: number;
}

/** The audit line `document.signed` of an apply: written at its commit, and shown earlier in a completion's attached trail. */
async function signedAuditEntry(
  db: Db,
  { signer, apply, identity, signed }: { signer: DocumentSigner; apply: Apply; identity: SigningIdentity; signed: SignedFacts },
): Promise<{ actor: Actor; action: 'document.signed'; data: Record<string, unknown> }> {
  const agent = apply.api_key_id ? await ApiKey.query(db).findById(apply.api_key_id) : undefined;
  return {
    actor: agent ? { type: 'agent', id: agent.id } : { type: 'signer', id: signer.id, ip: apply.ip, userAgent: apply.user_agent },
    action: 'document.signed',
    data: {
      apply_id: apply.id,
      signer_id: signer.id,
      name: identity.name,
      email: identity.email,
      method: signed.method,
      mandate_id: apply.mandate_id,
      pre_sign_hash: signed.preSignHash,
      document_hash: signed.documentHash,
      revision: signed.revision,
      consent_text: apply.input.consent_text,
    },
  };
}

async function recordSigned(
  trx: Knex.Transaction,
  { document, signer, apply, identity }: { document: Document; signer: DocumentSigner; apply: Apply; identity: SigningIdentity },
): Promise<void> {
  const agent = apply.api_key_id ? await ApiKey.query(trx).findById(apply.api_key_id) : undefined;
  const entry = await signedAuditEntry(trx, {
    signer,
    apply,
    identity,
    signed: {
      signedAt: apply.applied_at!,
      method: methodOf(apply),
      preSignHash: apply.pre_sign_hash!,
      documentHash: apply.document_hash!,
      revision: apply.revision!,
    },
  });
  await recordAudit(trx, { tenantId: document.tenant_id, documentId: document.id, ...entry });
  const data = {
    document_id: document.id,
    signer_id: signer.id,
    principal: { email: identity.email, name: identity.name },
    agent: agent ? { api_key_id: agent.id, label: agent.label } : null,
    mandate_id: apply.mandate_id,
    confirmation_level: apply.confirmation_level,
    pre_sign_hash: apply.pre_sign_hash,
    document_hash: apply.document_hash,
  };
  // The sender's webhooks hear of every apply; an inbound principal's own tenant hears of theirs.
  for (const tenantId of new Set([document.tenant_id, identity.tenantId])) await emitEvent(trx, tenantId, 'document.signed', data);
}

export async function applyOutcome(db: Db, applyId: string): Promise<ApplyOutcome | undefined> {
  const apply = await Apply.query(db).findById(applyId);
  if (!apply) return undefined;
  const document = (await Document.query(db).findById(apply.document_id))!;
  return outcomeOf(apply, document, await signersOf(db, document.id));
}

/** A signer declines: the document is declined and stays unsigned by them; nothing is stamped. */
export async function declineDocument(db: Db, input: { signerId: string; reason?: string; actor: Actor }): Promise<Document> {
  return db.transaction(async (trx) => {
    const signer = await DocumentSigner.query(trx).findById(input.signerId).forUpdate();
    if (!signer) throw errors.notFound('No such signer.');
    const document = (await Document.query(trx).findById(signer.document_id).forUpdate())!;
    if (signer.status === 'signed') throw errors.alreadySigned(`${signer.name} already signed this document.`);
    if (document.status !== 'sent') throw errors.invalidState(`This document is ${document.status}; it can no longer be declined.`);
    const pending = await Apply.query(trx).where({ signer_id: signer.id, status: 'pending' }).first();
    if (pending) throw errors.invalidState('A signature of this signer is being applied.');
    const now = new Date();
    await signer.$query(trx).patch({ status: 'declined', declined_at: now, decline_reason: input.reason ?? null });
    const declined = await document.$query(trx).patchAndFetch({ status: 'declined', declined_at: now });
    await recordAudit(trx, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor: input.actor,
      action: 'document.declined',
      data: { signer_id: signer.id, reason: input.reason ?? null },
    });
    await emitEvent(trx, document.tenant_id, 'document.declined', {
      document_id: document.id,
      signer_id: signer.id,
      signer: { email: signer.email, name: signer.name },
      reason: input.reason ?? null,
    });
    return declined;
  });
}
