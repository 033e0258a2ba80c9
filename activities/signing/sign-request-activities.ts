import { ApplicationFailure, heartbeat, log } from '@temporalio/activity';
import { Document, Mandate, Principal, SignRequest, type SignRequestStatus } from '../../db/models';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { stopSection } from '../accounts/stop';
import { type ApplyOutcome, rejectionOf } from '../apply/apply-outcome';
import type { NewApply } from '../apply/apply-record';
import { requestApply } from '../apply/orchestration';
import { recordAudit } from '../audit/audit';
import { signersOf } from '../documents/documents';
import type { MailQueueDeps } from '../mail/queue';
import { queueMail } from '../mail/queue';
import { checkEscalationStillValid } from '../offer-parties/parties';
import { confirmationFailedMail, signRequestMail } from './mails';
import { confirmMailKey, confirmUrl, type SigningDeps, signRequestToken, storedAppearance } from './signing';

/** What the sign-request workflow's activities work with: the signing rules and the mail queue. */
export type SignRequestDeps = SigningDeps & MailQueueDeps;

/** A request that escalated an offer wakes the offer's workflow when it ends, so the offer follows it. */
async function wakeItsOffer(deps: SignRequestDeps, request: SignRequest): Promise<void> {
  if (request.offer_id) await deps.workflows.wakeOffer(request.offer_id);
}

/** Ends a confirmed request, once: applied (with its audit line, in the same transaction) or failed. */
async function settle(deps: SignRequestDeps, request: SignRequest, status: 'applied' | 'failed', error?: ServiceError): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const settled = await SignRequest.query(trx)
      .findById(request.id)
      .whereIn('status', ['open', 'confirming'])
      .patch({ status, error_code: error?.code ?? null, error_message: error?.message ?? null });
    if (!settled || status !== 'applied') return;
    await recordAudit(trx, {
      tenantId: request.tenant_id,
      documentId: request.document_id,
      actor: { type: 'principal', id: request.principal_id, ip: request.decided_ip },
      action: 'sign_request.applied',
      data: { sign_request_id: request.id, apply_id: request.apply_id },
    });
  });
  await wakeItsOffer(deps, request);
}

/**
 * A confirmation that could not even become an apply (the mandate was revoked meanwhile …) is
 * mailed to the principal who confirmed; a rejected apply is mailed by the document's workflow.
 */
async function mailConfirmationFailed(deps: SignRequestDeps, request: SignRequest, error: ServiceError): Promise<void> {
  const [principal, document] = await Promise.all([
    Principal.query(deps.db).findById(request.principal_id),
    Document.query(deps.db).findById(request.document_id),
  ]);
  await queueMail(deps, {
    to: principal!.email,
    ...confirmationFailedMail({ principalName: principal!.name, documentName: document!.name, documentId: document!.id, error }),
    purpose: 'apply-rejected',
    tenantId: principal!.tenant_id,
    dedupeKey: `sign-request-failed:${request.id}`,
    documentId: request.document_id,
  });
}

/**
 * The principal confirmed in the app (the database says `confirming`): the apply procedure runs
 * through the document's workflow, with the mandate re-checked now (a revoke since the request
 * stops it). One step, safe to repeat: the apply is recorded once, handed over (the document's
 * workflow wakes the request's workflow when it settles) and, once settled, ends the request.
 * Answers `confirming` while the apply is still being made. `waitMs`: the legacy path's wait.
 */
async function stepConfirmed(deps: SignRequestDeps, confirmed: SignRequest, waitMs?: number): Promise<SignRequestStatus> {
  let request = confirmed;
  let outcome: ApplyOutcome;
  try {
    outcome = await requestApply(
      deps,
      request.apply_id
        ? { applyId: request.apply_id }
        : {
            record: await confirmedApply(deps, request),
            recorded: async (apply) => {
              request = await request.$query(deps.db).patchAndFetch({ apply_id: apply.id });
            },
          },
      { caller: 'activity', waiter: { signRequestId: request.id }, ...(waitMs ? { waitMs } : {}) },
    );
  } catch (error) {
    // Only a confirmation that could not become an apply fails the request; once it is one (a
    // hand-over Temporal could not take), the activity is retried and hands it over again.
    if (!(error instanceof ServiceError) || request.apply_id) throw error;
    await settle(deps, request, 'failed', error);
    await mailConfirmationFailed(deps, request, error);
    return 'failed';
  }
  if (outcome.status === 'pending') return 'confirming';
  const error = outcome.status === 'rejected' ? rejectionOf(outcome) : undefined;
  await settle(deps, request, error ? 'failed' : 'applied', error);
  return error ? 'failed' : 'applied';
}

/** The apply a confirmation makes: the stored appearance under the request's mandate, still in force (and its offer still open). */
async function confirmedApply(deps: SignRequestDeps, request: SignRequest): Promise<NewApply> {
  const mandate = await Mandate.query(deps.db).findById(request.mandate_id);
  if (!mandate?.isInForce()) throw errors.mandateInactive(t('errors.signing.mandate_revoked_expired_before_confirmation'));
  if (request.offer_id) await checkEscalationStillValid(deps.db, request.offer_id);
  const [document, signers] = await Promise.all([
    Document.query(deps.db).findById(request.document_id),
    signersOf(deps.db, request.document_id),
  ]);
  if (!document) throw errors.notFound(t('errors.documents.no_such_document'));
  const signer = signers.find((s) => s.id === request.signer_id)!;
  return {
    document,
    signers,
    signer,
    kind: 'mandate',
    input: { values: {}, appearance: 'stored', reason: request.reason, expected_sha256: request.expected_sha256 ?? undefined },
    signatureImage: await storedAppearance(deps, request.principal_id),
    mandateId: mandate.id,
    confirmationLevel: 'l1',
    apiKeyId: request.api_key_id,
    actor: { type: 'principal', id: request.principal_id, ip: request.decided_ip },
  };
}

/** One look at the request: a confirmation is carried one step further; any other status is answered as it is. */
async function step(deps: SignRequestDeps, id: string, waitMs?: number): Promise<SignRequestStatus> {
  const request = await SignRequest.query(deps.db).findById(id);
  if (!request) return 'failed';
  if (request.status === 'confirming') return stepConfirmed(deps, request, waitMs);
  if (request.status === 'declined') await wakeItsOffer(deps, request);
  if (request.status === 'open')
    log.warn('a decision signal reached an open sign request with no decision recorded by the app; nothing is applied', {
      signRequestId: id,
    });
  return request.status;
}

/** The sign request workflow's activities; each is safe to run twice. */
export function createSignRequestActivities(deps: SignRequestDeps) {
  return {
    /**
     * Queues the confirm mail. The workflow starts after the transaction that inserts the request
     * committed (activities/workflow-starts.ts); a row missing (a run started from inside it by an
     * earlier release) is retried, and a request that never committed ends the workflow with its budget.
     */
    async emailSignRequest(id: string): Promise<void> {
      const request = await SignRequest.query(deps.db).findById(id);
      if (!request) throw ApplicationFailure.retryable(`Sign request ${id} is not committed (yet).`, 'not_committed');
      const [principal, document] = await Promise.all([
        Principal.query(deps.db).findById(request.principal_id),
        Document.query(deps.db).findById(request.document_id),
      ]);
      const stop = stopSection(deps.config.appUrl, deps.secret, request.mandate_id);
      await queueMail(deps, {
        to: principal!.email,
        ...signRequestMail({
          principalName: principal!.name,
          documentName: document!.name,
          reason: request.reason,
          confirmUrl: confirmUrl(deps.config.appUrl, deps.secret, id),
          expiresAt: request.expires_at,
          stopLines: stop.lines,
        }),
        purpose: 'sign-request',
        tenantId: request.tenant_id,
        secrets: [signRequestToken(deps.secret, id), stop.secret],
        dedupeKey: confirmMailKey(id),
        documentId: request.document_id,
      });
    },

    /** Open → expired; answers the status it found or left (a confirm already recorded stays). */
    async expireSignRequest(id: string): Promise<SignRequestStatus> {
      const status = await deps.db.transaction(async (trx) => {
        const expired = await SignRequest.query(trx)
          .findById(id)
          .where({ status: 'open' })
          .patch({ status: 'expired', decided_at: new Date() });
        const request = (await SignRequest.query(trx).findById(id))!;
        if (expired) {
          const data = { sign_request_id: id, document_id: request.document_id };
          await recordAudit(trx, {
            tenantId: request.tenant_id,
            documentId: request.document_id,
            actor: { type: 'system' },
            action: 'sign_request.expired',
            data,
          });
        }
        return request.status;
      });
      if (status === 'expired') await wakeItsOffer(deps, (await SignRequest.query(deps.db).findById(id))!);
      return status;
    },

    /**
     * Acts on the decision the database records, never on a signal's word: only a request the app
     * marked `confirming` (the principal's session confirmed it) is applied. A signal for a request
     * that is still open is logged and changes nothing; a decline recorded by the app ends it. A
     * confirmation whose apply is still being made answers `confirming`: the workflow waits for the
     * document's workflow to wake it.
     */
    async stepSignRequest(id: string): Promise<SignRequestStatus> {
      return step(deps, id);
    },

    /**
     * stepSignRequest until the confirmation settled, for the histories started before the workflow
     * waited itself (patch `apply-wait-in-workflow`): each step waits on the document's workflow for
     * the apply, a second at a time between heartbeats. Remove once no such run is open.
     */
    async settleSignRequest(id: string): Promise<SignRequestStatus> {
      for (;;) {
        heartbeat({ doing: 'waiting for the apply to settle (legacy path)' });
        const status = await step(deps, id, 1000);
        if (status !== 'confirming') return status;
      }
    },
  };
}
export type SignRequestActivities = ReturnType<typeof createSignRequestActivities>;
