import { createHash } from 'node:crypto';
import type { Db } from '../../db/connect';
import { Document, type Principal, SignRequest } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { type Actor, recordAudit } from '../audit/audit';
import type { Workflows } from '../workflows';

/** A sign request of this principal, by id; 404 for anyone else's (the link alone proves nothing). */
export async function principalsSignRequest(
  db: Db,
  principal: Principal,
  id: string,
): Promise<{ request: SignRequest; document: Document }> {
  const request = await SignRequest.query(db).findById(id).where({ principal_id: principal.id });
  if (!request) throw errors.notFound(t('errors.signing.no_such_sign_request'));
  return { request, document: (await Document.query(db).findById(request.document_id))! };
}

/**
 * What the confirm page showed of a request, as one short value its form carries back: the offer it
 * escalates, the hash that offer binds and the agent's reason. An open request can be taken over by
 * an offer after the page was opened (the agent escalates it); the click then confirms only what was seen.
 */
export function requestVersion(request: Pick<SignRequest, 'offer_id' | 'expected_sha256' | 'reason'>): string {
  return createHash('sha256')
    .update(JSON.stringify([request.offer_id ?? null, request.expected_sha256 ?? null, request.reason]))
    .digest('hex')
    .slice(0, 32);
}

/**
 * The principal's confirm click: open → confirming, once, before the deadline. A second click (or a
 * second tab) finds it no longer open, so one confirmation makes at most one apply. The click carries
 * the version of what the page showed: a request that changed since is not confirmed (409), the
 * principal reviews it again.
 */
export async function beginConfirm(
  db: Db,
  principal: Principal,
  id: string,
  actor: Actor,
  version: string | undefined,
): Promise<SignRequest> {
  const { request } = await principalsSignRequest(db, principal, id);
  const now = new Date();
  return db.transaction(async (trx) => {
    const current = (await SignRequest.query(trx).findById(id).forUpdate())!;
    if (current.status === 'open' && version !== requestVersion(current))
      throw errors.invalidState(t('errors.signing.request_changed_since_opened_review'));
    const claimed = await SignRequest.whereOpenAt(SignRequest.query(trx).findById(id), now).patch({
      status: 'confirming',
      decided_at: now,
      decided_ip: actor.ip ?? null,
    });
    if (claimed === 0) {
      const latest = (await SignRequest.query(trx).findById(id))!;
      if (latest.status === 'open') throw errors.expired(t('errors.signing.sign_request_expired'));
      if (latest.status === 'confirming') throw errors.invalidState(t('errors.signing.request_being_applied'));
      throw errors.invalidState(t('errors.signing.request_already', { status: latest.status }));
    }
    await recordAudit(trx, {
      tenantId: request.tenant_id,
      documentId: request.document_id,
      actor,
      action: 'sign_request.confirmed',
      data: { sign_request_id: id, mandate_id: request.mandate_id, offer_id: current.offer_id ?? undefined, version },
    });
    return (await SignRequest.query(trx).findById(id))!;
  });
}

/** The principal's decline: open → declined; the document stays unsigned by them. */
export async function declineRequest(db: Db, principal: Principal, id: string, actor: Actor): Promise<SignRequest> {
  const { request } = await principalsSignRequest(db, principal, id);
  return db.transaction(async (trx) => {
    const declined = await SignRequest.query(trx)
      .findById(id)
      .where({ status: 'open' })
      .patch({ status: 'declined', decided_at: new Date(), decided_ip: actor.ip ?? null });
    if (declined === 0)
      throw errors.invalidState(t('errors.signing.request_already', { status: (await SignRequest.query(trx).findById(id))!.status }));
    await recordAudit(trx, {
      tenantId: request.tenant_id,
      documentId: request.document_id,
      actor,
      action: 'sign_request.declined',
      data: { sign_request_id: id },
    });
    return (await SignRequest.query(trx).findById(id))!;
  });
}

/** The hand-over to the request's workflow failed: the request is open again, to be confirmed later. */
export async function reopenConfirm(db: Db, id: string): Promise<void> {
  await SignRequest.query(db).findById(id).where({ status: 'confirming' }).patch({ status: 'open', decided_at: null, decided_ip: null });
}

/**
 * Waits up to `timeoutMs` for the request's workflow to carry out the decision (its `settled`
 * update answers the moment it is done, no polling), then reads the request once: still
 * `confirming` when the apply takes longer, or the workflow could not answer.
 */
export async function settledDecision(deps: { db: Db; workflows: Workflows }, id: string, timeoutMs: number): Promise<SignRequest> {
  try {
    await deps.workflows.signRequestSettled(id, Date.now() + timeoutMs);
  } catch (error) {
    deps.workflows.log?.debug('the sign request did not settle within the wait', { signRequestId: id, error: (error as Error).message });
  }
  return (await SignRequest.query(deps.db).findById(id))!;
}
