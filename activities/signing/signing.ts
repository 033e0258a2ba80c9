import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { isUniqueViolation } from '../../db/errors';
import { type Document, type DocumentSigner, Mandate, Principal, SignRequest } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import { readableImageKind } from '../../lib/pdf/image';
import { idFromToken, idToken } from '../../lib/secrets/signed';
import { type Caller, normalizeEmail } from '../accounts/accounts';
import { authorize, type Requirements } from '../accounts/authorize';
import type { ApplyDeps } from '../apply/apply-deps';
import { type ApplyOutcome, rejectionOf } from '../apply/apply-outcome';
import { utcDay } from '../apply/cap';
import { requestApply } from '../apply/orchestration';
import { type Actor, recordAudit } from '../audit/audit';
import { findVisibleDocument } from '../documents/documents';
import { LEVEL_FLAG, mandatesInForce } from '../mandates/mandates';
import type { Workflows } from '../workflows';

/** What signing as the principal (L2) requires: an API plan and l2_signing on (its route reads it too). */
export const L2_SIGN_NEEDS = { plan: 'api', flag: LEVEL_FLAG.L2 } as const satisfies Requirements;
/** What an L1 sign request requires: an API plan and l1_signing on (its routes read it too). */
export const L1_REQUEST_NEEDS = { plan: 'api', flag: LEVEL_FLAG.L1 } as const satisfies Requirements;

export interface SigningDeps extends ApplyDeps {
  config: Config;
  workflows: Workflows;
  secret: Buffer;
}

export interface MandatedApply {
  document: Document;
  signers: DocumentSigner[];
  signer: DocumentSigner;
  mandate: Mandate;
}

export interface CoveringMandates {
  document: Document;
  signers: DocumentSigner[];
  signer: DocumentSigner;
  /** The key's mandates in force whose mode covers the document, newest first (never empty). */
  covering: Mandate[];
}

/**
 * Step 1 of SPEC's apply procedure for a key acting for its principal: a mandate in force, the
 * principal a signer, and a mandate whose mode covers the document. A key of one tenant only ever
 * acts for its own principal, so it can never sign as a principal of another tenant.
 */
export async function coveringMandates(db: Db, caller: Caller, documentId: string, level?: 'L1' | 'L2'): Promise<CoveringMandates> {
  const { document, signers } = await findVisibleDocument(db, caller, documentId);
  const inForce = await mandatesInForce(db, caller.apiKey.id);
  if (inForce.length === 0) {
    const granted = await Mandate.query(db).where({ api_key_id: caller.apiKey.id }).whereNot('status', 'pending').resultSize();
    if (granted > 0) throw errors.mandateInactive(t('errors.signing.mandate_inactive'));
    throw errors.mandateRequired(t('errors.signing.mandate_required'));
  }
  if (level === 'L2' && !inForce.some((mandate) => mandate.confirmation_level === 'L2')) {
    throw errors.confirmationRequired(t('errors.signing.confirmation_required'));
  }
  // A principal may hold more than one signer row (two roles): the first one still to sign is theirs to act on.
  const own = signers.filter((candidate) => candidate.email === normalizeEmail(caller.principal.email));
  const signer = own.find((candidate) => candidate.status === 'pending') ?? own[0];
  if (!signer) throw errors.principalNotSigner(t('errors.signing.principal_not_signer_document'));
  const outbound = document.owner_principal_id === caller.principal.id;
  const covering = inForce.filter((mandate) => mandate.mode === 'both' || mandate.mode === (outbound ? 'outbound' : 'inbound'));
  if (covering.length === 0) {
    throw errors.mandateScope(
      t('errors.signing.mandate_direction', { mode: inForce[0].mode, direction: outbound ? 'outbound' : 'inbound' }),
    );
  }
  return { document, signers, signer, covering };
}

/** Step 1 for one level: an L2 apply needs an L2 mandate covering the document (else confirmation_required). */
export async function resolveMandate(db: Db, caller: Caller, documentId: string, level: 'L1' | 'L2'): Promise<MandatedApply> {
  const { document, signers, signer, covering } = await coveringMandates(db, caller, documentId, level);
  const mandate = level === 'L2' ? covering.find((candidate) => candidate.confirmation_level === 'L2') : covering[0];
  if (!mandate) throw errors.confirmationRequired(t('errors.signing.only_l1_covers'));
  return { document, signers, signer, mandate };
}

/** Step 4: the principal's stored appearance, a readable PNG or JPEG. */
export async function storedAppearance(deps: Pick<ApplyDeps, 'db' | 'blobs'>, principalId: string): Promise<Buffer> {
  const principal = (await Principal.query(deps.db).findById(principalId))!;
  // Only a blob that is not there is a missing appearance; a blob store that fails (down, refusing) is
  // that failure, retried or answered 503, never told to the principal as "no stored signature".
  const image = principal.signature_sha256
    ? await deps.blobs.get(principal.signature_sha256).catch((error: NodeJS.ErrnoException) => {
        if (error?.code === 'ENOENT') return undefined;
        throw error;
      })
    : undefined;
  if (!image || !(await readableImageKind(image))) {
    throw errors.missingAppearance(t('errors.signing.missing_appearance'));
  }
  return image;
}

export interface L2Result {
  outcome: ApplyOutcome;
  mandate: Mandate;
  /** The apply this call recorded (or joined): what a 202 answer waits for. */
  applyId: string;
}

/**
 * POST /documents/:id/sign: the stored appearance applied now, under the key's L2 mandate, for any
 * surface (the gate runs here, not only in a route spec: Business+ and l2_signing). The
 * day's slot is taken with the apply record (a caller that joins an apply in flight takes none)
 * and given back by whoever rejects the apply.
 */
export async function signAsPrincipal(
  deps: SigningDeps,
  caller: Caller,
  documentId: string,
  reason: string,
  actor: Actor,
): Promise<L2Result> {
  authorize(caller, L2_SIGN_NEEDS, deps.config.flags.values);
  const { document, signers, signer, mandate } = await resolveMandate(deps.db, caller, documentId, 'L2');
  const appearance = await storedAppearance(deps, caller.principal.id);
  const outcome = await requestApply(deps, {
    record: {
      document,
      signers,
      signer,
      kind: 'mandate',
      input: { values: {}, appearance: 'stored', reason },
      signatureImage: appearance,
      mandateId: mandate.id,
      confirmationLevel: 'l2',
      apiKeyId: caller.apiKey.id,
      capDay: utcDay(new Date()),
      actor,
    },
  });
  if (outcome.status === 'rejected') throw rejectionOf(outcome);
  return { outcome, mandate, applyId: outcome.apply_id };
}

/**
 * A retry (same Idempotency-Key) of an L2 sign that answered 202: the apply that call recorded,
 * handed over and waited for again as long as the first call waited (the same idempotent call),
 * answered as the first call would have been (applied, still processing, or the rejection) instead
 * of signing again.
 */
export async function resumeL2Sign(deps: SigningDeps, resume: { applyId: string; mandateId: string }): Promise<L2Result> {
  const outcome = await requestApply(deps, { applyId: resume.applyId });
  if (outcome.status === 'rejected') throw rejectionOf(outcome);
  const mandate = await Mandate.query(deps.db).findById(resume.mandateId);
  if (!mandate) throw errors.notFound(t('errors.signing.no_such_mandate'));
  return { outcome, mandate, applyId: resume.applyId };
}

/** The confirm link of a sign request names the request; its MAC stops forged ones (see idToken). */
export function signRequestToken(secret: Buffer, id: string): string {
  return idToken(secret, 'sign-request', id);
}

export function signRequestIdFromToken(secret: Buffer, token: string): string | undefined {
  return idFromToken(secret, 'sign-request', token, /^sr_[0-9A-Za-z]{20}$/);
}

export function confirmUrl(appUrl: string, secret: Buffer, id: string): string {
  return `${appUrl}/sign-request/${signRequestToken(secret, id)}`;
}

/** The confirm mail of a sign request is sent once: this key names it (and its state, for the agent). */
export function confirmMailKey(id: string): string {
  return `sign-request:${id}`;
}

/**
 * POST /documents/:id/sign-requests: an L1 request the principal confirms in the app, for any surface
 * (the gate runs here: Business+ and l1_signing). One open
 * request per document and key (the unique index answers a second one with 409 pending_exists).
 * `start` records the start of the request's workflow in its transaction, so no request exists without
 * one; the workflow starts after the commit (activities/workflow-starts.ts).
 */
export async function requestSign(
  deps: SigningDeps,
  caller: Caller,
  documentId: string,
  reason: string,
  actor: Actor,
  start: (request: SignRequest, trx: Knex.Transaction) => Promise<void>,
  /** The offer this request escalates: its apply must still find the PDF the offer was bound to. */
  offer?: { id: string; preSignHash: string },
): Promise<SignRequest> {
  authorize(caller, L1_REQUEST_NEEDS, deps.config.flags.values);
  const { document, signer, mandate } = await resolveMandate(deps.db, caller, documentId, 'L1');
  if (signer.status === 'signed') throw errors.alreadySigned(t('errors.signing.principal_already_signed_document'));
  if (document.status !== 'sent' || signer.status !== 'pending')
    throw errors.invalidState(t('errors.signing.document_cannot_signed', { status: document.status }));
  try {
    return await deps.db.transaction(async (trx: Knex.Transaction) => {
      const request = await SignRequest.query(trx).insertAndFetch({
        id: newId('sr'),
        tenant_id: caller.tenant.id,
        document_id: document.id,
        signer_id: signer.id,
        principal_id: caller.principal.id,
        api_key_id: caller.apiKey.id,
        mandate_id: mandate.id,
        reason: reason.trim(),
        status: 'open',
        expires_at: new Date(Date.now() + deps.config.durations.signRequestMs),
        offer_id: offer?.id ?? null,
        expected_sha256: offer?.preSignHash ?? null,
      });
      await recordAudit(trx, {
        tenantId: caller.tenant.id,
        documentId: document.id,
        actor,
        action: 'sign_request.created',
        data: {
          sign_request_id: request.id,
          document_id: document.id,
          mandate_id: mandate.id,
          reason: request.reason,
          offer_id: offer?.id,
        },
      });
      await start(request, trx);
      return request;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw errors.pendingExists(t('errors.signing.open_sign_request_already_exists', { id: document.id }));
    }
    throw error;
  }
}
