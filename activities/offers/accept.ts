import type { Knex } from 'knex';
import { Apply, Document, DocumentSigner, OFFER_OPEN, Offer, Principal, SignRequest } from '../../db/models';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { bestEffort } from '../../lib/temporal';
import { type Caller, SIGN_SCOPE } from '../accounts/accounts';
import { authorize, type Requirements } from '../accounts/authorize';
import { type ApplyOutcome, applyOutcome, rejectionOf } from '../apply/apply-outcome';
import { rejectApply } from '../apply/apply-record';
import { DAILY_L2_CAP, l2AppliesToday, utcDay } from '../apply/cap';
import { requestApply } from '../apply/orchestration';
import type { Actor } from '../audit/audit';
import { sealedLink } from '../events/outbox';
import { credentialsOf } from '../mandates/credentials';
import { policyRefusal } from '../mandates/policy';
import { checkContactActive, checkOfferorMandate, tellBothSides } from '../offer-parties/parties';
import { offerReceiptClaims } from '../receipts/receipts';
import { confirmUrl, coveringMandates, requestSign, type SigningDeps, storedAppearance } from '../signing/signing';
import { startAfterCommit, starts } from '../workflow-starts';
import { checkDocumentUnchanged, checkOffersFlag, checkOpen, inboundOffer, type OfferDeps } from './offers';

export type AcceptDeps = OfferDeps & SigningDeps;

/** What accepting an offer requires of the caller: an API plan, the signing scope, agent offers on (the route reads it too). */
export const ACCEPT_OFFER_NEEDS = { plan: 'api', scope: SIGN_SCOPE, flag: 'agent_offers' } as const satisfies Requirements;
/** What an accept answered: the offer, and whether its L2 apply is still being made (202). */
export interface AcceptResult {
  offer: Offer;
  processing: boolean;
}

/**
 * The counterparty's signature was applied (L2 by its agent, or L1 confirmed by the principal): the
 * offer is accepted once, with its receipt (also a JWS), and `offer.accepted` goes to both sides.
 */
export async function finishAccepted(deps: Pick<AcceptDeps, 'db' | 'receipts'>, offerId: string, applyId: string): Promise<Offer> {
  const apply = (await Apply.query(deps.db).findById(applyId))!;
  const signer = (await DocumentSigner.query(deps.db).findById(apply.signer_id))!;
  const document = (await Document.query(deps.db).findById(apply.document_id))!;
  return deps.db.transaction(async (trx) => {
    const offer = (await Offer.query(trx).findById(offerId).forUpdate())!;
    if (offer.status === 'accepted') return offer;
    const offeror = (await Principal.query(trx).findById(offer.from_principal_id))!;
    const claims = offerReceiptClaims(offer, {
      signer,
      offeror: { email: offeror.email, name: offeror.name },
      documentHash: apply.document_hash!,
      finalSha256: document.current_sha256,
      credentials: await credentialsOf(trx, [signer.mandate_id]),
    });
    const receiptJws = await deps.receipts.sign(trx, claims, offer.id);
    const accepted = await offer.$query(trx).patchAndFetch({
      status: 'accepted',
      accepted_at: apply.applied_at ?? new Date(),
      apply_id: apply.id,
      mandate_id: apply.mandate_id,
      confirmation_level: apply.confirmation_level as 'l1' | 'l2',
      document_hash: apply.document_hash,
      final_sha256: document.current_sha256,
      receipt_jws: receiptJws,
      error_code: null,
      error_message: null,
    });
    await tellBothSides(trx, accepted, 'offer.accepted', receiptFields(accepted), { type: 'system' });
    return accepted;
  });
}

/** The receipt fields of an accepted offer (SPEC), and the receipt itself as a compact JWS. */
export function receiptFields(offer: Offer) {
  return {
    mandate_id: offer.mandate_id,
    confirmation_level: offer.confirmation_level,
    document_hash: offer.document_hash,
    final_sha256: offer.final_sha256,
    receipt_jws: offer.receipt_jws,
  };
}

/**
 * What an L2 apply of an accept came to: applied → the offer is accepted; rejected → the offer is
 * open again (its error kept for the agent), and the rejection is answered; still pending → unchanged.
 */
export async function settleAcceptApply(deps: AcceptDeps, offerId: string, outcome: ApplyOutcome): Promise<Offer> {
  if (outcome.status === 'applied') return finishAccepted(deps, offerId, outcome.apply_id);
  if (outcome.status === 'rejected') {
    await Offer.query(deps.db)
      .findById(offerId)
      .where({ apply_id: outcome.apply_id })
      .patch({
        apply_id: null,
        accepted_by_key_id: null,
        error_code: outcome.code ?? 'sign_failed',
        error_message: outcome.message ?? null,
      });
  }
  return (await Offer.query(deps.db).findById(offerId))!;
}

async function escalateInTransaction(
  deps: AcceptDeps,
  trx: Knex.Transaction,
  offer: Offer,
  request: SignRequest,
  actor: Actor,
): Promise<void> {
  const escalated = await Offer.query(trx)
    .findById(offer.id)
    .whereIn('status', OFFER_OPEN)
    .patch({ status: 'escalated', escalated_at: new Date(), sign_request_id: request.id, error_code: null, error_message: null });
  if (!escalated) throw errors.invalidState(t('errors.offers.offer_changed_meanwhile_fetch_again'));
  const current = (await Offer.query(trx).findById(offer.id))!;
  await tellBothSides(
    trx,
    current,
    'offer.escalated',
    { sign_request_id: request.id, confirm_url: sealedLink(deps.secret, confirmUrl(deps.config.appUrl, deps.secret, request.id)) },
    actor,
  );
}

/**
 * The L1 path: an L1 sign request for the counterparty's principal, bound to the offer's hash; the
 * principal confirms (or declines) it in the app and the offer follows. An escalation whose request
 * still waits answers the offer unchanged; one whose request expired or failed asks again.
 */
export async function escalateOffer(deps: AcceptDeps, caller: Caller, offerId: string, actor: Actor, outOfPolicy?: string): Promise<Offer> {
  checkOffersFlag(deps);
  const offer = await inboundOffer(deps.db, caller, offerId);
  checkOpen(offer);
  if (offer.apply_id) throw errors.invalidState(t('errors.offers.being_accepted'));
  if (offer.status === 'escalated' && offer.sign_request_id) {
    const request = await SignRequest.query(deps.db).findById(offer.sign_request_id);
    if (request && ['open', 'confirming', 'applied'].includes(request.status)) return offer;
  }
  await checkContactActive(deps.db, [offer.from_contact_id, offer.to_contact_id]);
  await checkOfferorMandate(deps.db, offer);
  await checkDocumentUnchanged(deps.db, offer);
  // Escalated because the mandate's policy does not cover it: the principal reads which constraint.
  const why = outOfPolicy ? ` (${outOfPolicy})` : '';
  const reason = `Offer ${offer.id} from ${offer.from_email}${why}: ${offer.terms}`.slice(0, 2000);
  try {
    await requestSign(
      deps,
      caller,
      offer.document_id,
      reason,
      actor,
      async (request, trx) => {
        await escalateInTransaction(deps, trx, offer, request, actor);
        await startAfterCommit(deps, trx, starts.signRequest(request));
      },
      { id: offer.id, preSignHash: offer.pre_sign_hash },
    );
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === 'pending_exists')) throw error;
    await adoptOpenRequest(deps, caller, offer, actor);
  }
  await bestEffort(deps.workflows, `wake-up of ${offer.id}`, () => deps.workflows.wakeOffer(offer.id));
  return (await Offer.query(deps.db).findById(offer.id))!;
}

/**
 * The key already has an open sign request on this document (asked for before the offer): it
 * becomes the offer's escalation, bound to the offer's hash, instead of a second request.
 */
async function adoptOpenRequest(deps: AcceptDeps, caller: Caller, offer: Offer, actor: Actor): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const request = await SignRequest.query(trx)
      .where({ document_id: offer.document_id, api_key_id: caller.apiKey.id, status: 'open' })
      .where((q) => q.whereNull('offer_id').orWhere('offer_id', offer.id))
      .forUpdate()
      .first();
    if (!request) throw errors.pendingExists(t('errors.offers.pending_sign_request', { documentId: offer.document_id }));
    await request.$query(trx).patch({ offer_id: offer.id, expected_sha256: offer.pre_sign_hash });
    await escalateInTransaction(deps, trx, offer, request, actor);
  });
}

/**
 * POST /offers/:id/accept, by the counterparty's key (scope documents:sign): with an L2 mandate
 * covering the document, in policy (under the day's cap, which this apply counts toward),
 * `l2_signing` on and no human signature required, the stored appearance is applied now by the same
 * apply procedure as POST /sign, bound to the offer's hash; otherwise the offer escalates (L1).
 */
export async function acceptOffer(deps: AcceptDeps, caller: Caller, offerId: string, actor: Actor): Promise<AcceptResult> {
  authorize(caller, ACCEPT_OFFER_NEEDS, deps.config.flags.values);
  const offer = await inboundOffer(deps.db, caller, offerId);
  checkOpen(offer);
  if (offer.status === 'escalated') return { offer, processing: false };
  if (offer.apply_id) return joinApply(deps, offer.id, offer.apply_id);
  await checkContactActive(deps.db, [offer.from_contact_id, offer.to_contact_id]);
  await checkOfferorMandate(deps.db, offer);
  await checkDocumentUnchanged(deps.db, offer);
  const { document, signers, signer, covering } = await coveringMandates(deps.db, caller, offer.document_id);
  const l2 = covering.find((mandate) => mandate.confirmation_level === 'L2');
  const today = l2 ? await l2AppliesToday(deps.db, l2.id) : 0;
  const outside = l2 && (await policyRefusal(deps.db, l2, { document, signers, principal: caller.principal }, today));
  const inPolicy = l2 && deps.config.flags.values.l2_signing && !offer.human_signature_required && !outside && today < DAILY_L2_CAP;
  if (!inPolicy)
    return { offer: await escalateOffer(deps, caller, offerId, actor, outside ? outside.message : undefined), processing: false };

  const appearance = await storedAppearance(deps, caller.principal.id);
  const input = {
    values: {},
    appearance: 'stored' as const,
    reason: `Offer ${offer.id}: ${offer.terms}`.slice(0, 2000),
    expected_sha256: offer.pre_sign_hash,
  };
  const held: { apply?: Apply; claimed?: boolean } = {};
  let outcome: ApplyOutcome;
  try {
    outcome = await requestApply(
      deps,
      {
        record: {
          document,
          signers,
          signer,
          kind: 'mandate',
          input,
          signatureImage: appearance,
          mandateId: l2.id,
          confirmationLevel: 'l2',
          apiKeyId: caller.apiKey.id,
          capDay: utcDay(new Date()),
          actor,
        },
        recorded: async (apply) => {
          held.apply = apply;
          await claimOffer(deps, caller, offer, apply);
          held.claimed = true;
          // The workflow watches the apply too, so the offer settles even if this request stops waiting.
          await deps.workflows.wakeOffer(offer.id).catch(async (error: unknown) => {
            await rejectApply(deps.db, apply.id, errors.serviceUnavailable(t('errors.offers.signature_could_not_handed_over')));
            throw error;
          });
        },
      },
      { waiter: { offerId: offer.id } },
    );
  } catch (error) {
    // The day's last L2 slot went to a concurrent apply, or its policy's place: out of policy now, so the principal confirms.
    if (!held.apply && error instanceof ServiceError && (error.code === 'rate_limited' || error.code === 'mandate_scope'))
      return {
        offer: await escalateOffer(deps, caller, offerId, actor, error.code === 'mandate_scope' ? error.message : undefined),
        processing: false,
      };
    // Temporal could not take it (the wake-up or the hand-over): the apply was rejected, its slot given
    // back, and the offer is open again with the error kept.
    if (held.claimed) await settleAcceptApply(deps, offer.id, (await applyOutcome(deps.db, held.apply!.id))!);
    throw error;
  }
  return answerAccept(deps, offer.id, outcome);
}

/**
 * The offer takes the just-recorded apply as its accept. Declined (or expired) between the checks and
 * now: the apply is not made, its L2 slot given back.
 */
async function claimOffer(deps: AcceptDeps, caller: Caller, offer: Offer, apply: Apply): Promise<void> {
  const claimed = await Offer.query(deps.db)
    .findById(offer.id)
    .whereIn('status', ['pending', 'acknowledged'])
    .where((q) => q.whereNull('apply_id').orWhere('apply_id', apply.id))
    .patch({ apply_id: apply.id, accepted_by_key_id: caller.apiKey.id });
  if (!claimed) {
    const changed = errors.invalidState(t('errors.offers.offer_changed_meanwhile_fetch_again'));
    await rejectApply(deps.db, apply.id, changed);
    throw changed;
  }
}

/** Waits (up to the apply wait) for an accept's apply recorded earlier (a join), then answers as the accept that recorded it. */
async function joinApply(deps: AcceptDeps, offerId: string, applyId: string): Promise<AcceptResult> {
  return answerAccept(deps, offerId, await requestApply(deps, { applyId }));
}

/** Settles the offer by its apply's outcome, and answers it: the rejection, or the offer (still processing while pending). */
async function answerAccept(deps: AcceptDeps, offerId: string, outcome: ApplyOutcome): Promise<AcceptResult> {
  const offer = await settleAcceptApply(deps, offerId, outcome);
  if (outcome.status === 'rejected') throw rejectionOf(outcome);
  return { offer, processing: outcome.status === 'pending' };
}
