// Recording an apply (pending), rejecting one, and a signer's decline: the rows, audit lines and events around the PDF work.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { isUniqueViolation } from '../../db/errors';
import { ApiKey, Apply, type ApplyInput, type ApplyKind, Document, DocumentSigner, Mandate } from '../../db/models';
import { writeAsOne } from '../../db/one-statement';
import { errors, type ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import { applies } from '../../lib/metrics';
import { readableImageKind } from '../../lib/pdf/image';
import { type Actor, auditWrite, recordAudit } from '../audit/audit';
import { emitEvent, emitEventTo } from '../events/outbox';
import { dailyCapOf, enforcePolicy, outOfPolicy } from '../mandates/policy';
import { checkApplicable } from './apply-check';
import type { ApplyDeps } from './apply-deps';
import { type ApplyOutcome, applyOutcome } from './apply-outcome';
import { capReached, DAILY_L2_CAP, releaseL2, reserveL2 } from './cap';
import { announceSettled } from './settled-notices';

export interface NewApply {
  /**
   * The document and its signers as the caller read them for this request (the sign link's view, the
   * mandate's resolution, the offer): checked here once, not read again. The commit checks again what
   * can change meanwhile, on the rows it locks (apply-commit.ts).
   */
  document: Document;
  signers: DocumentSigner[];
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
 * Records an apply to be made (status pending) once the checks pass on the rows the caller read
 * (checkApplicable: the request's one check). One live apply per signer: a
 * second submission while one is pending joins it instead of stamping twice (and takes no second
 * L2 slot: the slot is taken with the row, in one transaction).
 */
export async function recordApply(deps: ApplyDeps, request: NewApply): Promise<Apply> {
  const { document, signers } = request;
  const signer = signers.find((s) => s.id === request.signer.id) ?? request.signer;
  checkApplicable(document, signers, signer, request.input);
  if (!(await readableImageKind(request.signatureImage))) {
    throw errors.missingAppearance(t('errors.documents.signature_image_not_readable_png'));
  }
  if (request.initialsImage && !(await readableImageKind(request.initialsImage))) {
    throw errors.missingAppearance(t('errors.documents.initials_image_not_readable_png'));
  }
  const [signatureSha256, initialsSha256] = await Promise.all([
    deps.blobs.put(request.signatureImage),
    request.initialsImage ? deps.blobs.put(request.initialsImage) : null,
  ]);
  const row = {
    id: newId('apl'),
    tenant_id: document.tenant_id,
    document_id: document.id,
    signer_id: signer.id,
    kind: request.kind,
    status: 'pending' as const,
    input: request.input,
    signature_sha256: signatureSha256,
    initials_sha256: initialsSha256,
    mandate_id: request.mandateId ?? null,
    confirmation_level: request.confirmationLevel ?? null,
    api_key_id: request.apiKeyId ?? null,
    cap_day: request.capDay ?? null,
    ip: request.actor.ip ?? null,
    user_agent: request.actor.userAgent?.slice(0, 500) ?? null,
  };
  const submitted = (trx: Knex | Knex.Transaction) =>
    auditWrite(trx, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor: request.actor,
      action: 'signature.submitted',
      data: {
        apply_id: row.id,
        signer_id: signer.id,
        kind: request.kind,
        appearance: request.input.appearance,
        ...(request.input.prefill_changed?.length ? { prefill_changed: request.input.prefill_changed } : {}),
      },
    });
  // The signer's row shows this apply from now on (GET /documents/:id: being applied, applied, or why not).
  const shown = (trx: Knex | Knex.Transaction) => trx(DocumentSigner.tableName).where({ id: signer.id }).update({ last_apply_id: row.id });
  const inserted = (trx: Knex | Knex.Transaction) =>
    trx(Apply.tableName)
      .insert({ ...row, input: JSON.stringify(row.input) })
      .returning('*');
  try {
    // Without an L2 slot to take: the apply, the signer's row and the audit line in one statement.
    if (!(request.capDay && request.mandateId))
      return Apply.fromDatabaseJson((await writeAsOne(deps.db, [shown(deps.db), submitted(deps.db)], inserted(deps.db)))[0]);
    const { mandateId, capDay } = request;
    return await deps.db.transaction(async (trx) => {
      // The mandate's row lock orders its applies: each is checked against its policy after the ones before it.
      const mandate = await Mandate.query(trx).findById(mandateId).forUpdate();
      if (mandate?.policy) {
        const principal = { id: mandate.principal_id, email: signer.email };
        const checked = await enforcePolicy(trx, mandate, { document, signers, principal });
        row.input = { ...row.input, policy_checked: checked };
      }
      const apply = Apply.fromDatabaseJson((await inserted(trx))[0]);
      const cap = mandate ? dailyCapOf(mandate) : DAILY_L2_CAP;
      if (!(await reserveL2(trx, mandateId, capDay, cap)))
        throw cap < DAILY_L2_CAP ? outOfPolicy('daily_cap', t('errors.policy.daily_cap_reached', { cap })) : capReached();
      await writeAsOne(trx, [shown(trx), submitted(trx)]);
      return apply;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const live = await Apply.query(deps.db).where({ signer_id: signer.id }).whereIn('status', ['pending', 'applied']).first();
    if (live?.status === 'applied') throw errors.alreadySigned(t('errors.documents.already_signed_document', { name: signer.name }));
    if (live) return live;
    throw error;
  }
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
    await rejectLocked(trx, apply, error);
    return true;
  });
  if (!rejected) return applyOutcome(db, applyId);
  applies.inc({ outcome: 'rejected', code: error.code });
  const outcome = await applyOutcome(db, applyId);
  // A request still waiting for this apply hears it now (settled-notices.ts), not after the workflow task;
  // the rejection stands either way, and a notice not sent only costs the waiting request time.
  if (outcome) await announceSettled(db, outcome).catch(() => undefined);
  return outcome;
}

/**
 * `rejectApply` inside a transaction that already holds the pending apply's row lock (the commit's,
 * whose checks refused it): the row, the L2 slot, the audit line and the event. The caller counts it
 * once its transaction commits.
 */
export async function rejectLocked(trx: Knex.Transaction, apply: Apply, error: ServiceError): Promise<void> {
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
  await emitEventTo(trx, [signer.tenant_id, mandate?.tenant_id ?? signer.tenant_id], 'document.sign_failed', data);
}

/** A signer declines: the document is declined and stays unsigned by them; nothing is stamped. */
export async function declineDocument(db: Db, input: { signerId: string; reason?: string; actor: Actor }): Promise<Document> {
  return db.transaction(async (trx) => {
    const signer = await DocumentSigner.query(trx).findById(input.signerId).forUpdate();
    if (!signer) throw errors.notFound(t('errors.documents.no_such_signer'));
    const document = (await Document.query(trx).findById(signer.document_id).forUpdate())!;
    if (signer.status === 'signed') throw errors.alreadySigned(t('errors.documents.already_signed_document', { name: signer.name }));
    if (document.status !== 'sent')
      throw errors.invalidState(t('errors.documents.document_can_no_longer_declined', { status: document.status }));
    const pending = await Apply.query(trx).where({ signer_id: signer.id, status: 'pending' }).first();
    if (pending) throw errors.invalidState(t('errors.documents.signature_signer_being_applied'));
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
