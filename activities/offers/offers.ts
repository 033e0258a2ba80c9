import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Contact, Document, OFFER_OPEN, Offer, type OfferStatus, Principal, SignRequest } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import { page } from '../../lib/paging';
import type { ReceiptIssuer } from '../../lib/receipts';
import { bestEffort } from '../../lib/temporal';
import { type Caller, normalizeEmail } from '../accounts/accounts';
import { authorize, type Requirements } from '../accounts/authorize';
import { type Actor, recordAudit } from '../audit/audit';
import { findContact } from '../contacts/contacts';
import { signersOf } from '../documents/documents';
import { emitEvent } from '../events/outbox';
import { offerEventData, tellBothSides } from '../offer-parties/parties';
import { startAfterCommit, starts } from '../workflow-starts';
import type { Workflows } from '../workflows';

export interface OfferReadDeps {
  db: Db;
  config: Config;
}

export interface OfferDeps extends OfferReadDeps {
  workflows: Workflows;
  secret: Buffer;
  receipts: ReceiptIssuer;
}

export function checkOffersFlag(deps: { config: Config }): void {
  authorize(null, OFFER_RULES_NEED, deps.config.flags.values);
}

/** What every offer rule requires: agent offers on (the offer routes read it too). */
export const OFFER_RULES_NEED = { flag: 'agent_offers' } as const satisfies Requirements;

/** An offer this principal is a party to (offeror or counterparty); 404 for anyone else. */
export async function findOffer(db: Db | Knex.Transaction, principalId: string, id: string): Promise<Offer> {
  const offer = await Offer.query(db)
    .findById(id)
    .where((q) => q.where({ from_principal_id: principalId }).orWhere({ to_principal_id: principalId }));
  if (!offer) throw errors.notFound(t('errors.offers.no_such_offer'));
  return offer;
}

export interface OfferListQuery {
  limit: number;
  cursor?: string;
  direction?: 'inbound' | 'outbound';
  status?: OfferStatus;
}

/** GET /offers: inbound and outbound offers of the key's principal, newest first. */
export async function listOffers(deps: OfferReadDeps, caller: Caller, query: OfferListQuery) {
  checkOffersFlag(deps);
  const me = caller.principal.id;
  const rows = Offer.query(deps.db);
  if (query.direction === 'inbound') rows.where('offers.to_principal_id', me);
  else if (query.direction === 'outbound') rows.where('offers.from_principal_id', me);
  else rows.where((q) => q.where('offers.from_principal_id', me).orWhere('offers.to_principal_id', me));
  if (query.status) rows.where('offers.status', query.status);
  return page(rows, { limit: query.limit, cursor: query.cursor, table: 'offers' });
}

export async function getOffer(deps: OfferReadDeps, caller: Caller, id: string): Promise<Offer> {
  checkOffersFlag(deps);
  return findOffer(deps.db, caller.principal.id, id);
}

/** An expired offer (or one past its expires_at) answers 410; an accepted or declined one never moves again (409). */
export function checkOpen(offer: Offer, now = new Date()): void {
  if (offer.status === 'expired' || offer.expires_at.getTime() <= now.getTime())
    throw errors.expired(t('errors.offers.offer_expired', { expiresAt: offer.expires_at.toISOString() }));
  if (offer.isFinal()) throw errors.invalidState(t('errors.offers.offer_cannot_change_any_more', { status: offer.status }));
}

/** Only the counterparty acts on an offer made to it (ack, accept, escalate, decline). */
export async function inboundOffer(db: Db, caller: Caller, id: string): Promise<Offer> {
  const offer = await findOffer(db, caller.principal.id, id);
  if (offer.to_principal_id !== caller.principal.id)
    throw errors.invalidState(t('errors.offers.own_offer_only_their_agent', { toEmail: offer.to_email }));
  return offer;
}

/** SPEC: the offer is bound to the SHA-256 of the PDF it was made on; once another apply changed it, 409. */
export async function checkDocumentUnchanged(db: Db, offer: Offer): Promise<Document> {
  const document = (await Document.query(db).findById(offer.document_id))!;
  if (document.current_sha256 !== offer.pre_sign_hash)
    throw errors.documentChanged(
      t('errors.offers.document_changed_since_offer_made', { currentSha256: document.current_sha256, boundSha256: offer.pre_sign_hash }),
    );
  return document;
}

/**
 * POST /documents/:id/offers: the caller's sent document, offered to an active contact's principal
 * who is one of its signers, bound to the SHA-256 of its current sealed PDF. The start of the
 * offer's workflow is recorded in the same transaction (no offer without its workflow) and made after the commit.
 */
export async function proposeOffer(
  deps: OfferDeps,
  caller: Caller,
  documentId: string,
  input: { contact_id: string; terms: string; human_signature_required?: boolean },
  actor: Actor,
): Promise<Offer> {
  checkOffersFlag(deps);
  const contact = await findContact(deps.db, caller.principal.id, input.contact_id);
  const document = await Document.query(deps.db).findById(documentId).where({ tenant_id: caller.tenant.id });
  if (!document) throw errors.notFound(t('errors.offers.no_such_document_account'));
  if (contact.status !== 'active' || !contact.counterparty_principal_id)
    throw errors.invalidState(
      t('errors.offers.contact_offers_need_active_contact', { counterpartyEmail: contact.counterparty_email, status: contact.status }),
    );
  if (document.status !== 'sent') throw errors.invalidState(t('errors.offers.document_not_sent', { status: document.status }));
  const counterparty = (await Principal.query(deps.db).findById(contact.counterparty_principal_id))!;
  const theirs = (await signersOf(deps.db, document.id)).filter((signer) => signer.email === normalizeEmail(counterparty.email));
  if (theirs.length === 0) throw errors.principalNotSigner(t('errors.offers.not_signer_document', { email: counterparty.email }));
  if (theirs.every((signer) => signer.status === 'signed'))
    throw errors.alreadySigned(t('errors.offers.already_signed_document', { email: counterparty.email }));
  const other = await Contact.query(deps.db).findOne({ pair_id: contact.pair_id, principal_id: counterparty.id });
  if (!other) throw errors.invalidState(t('errors.offers.contact_no_counterparty_side'));
  return deps.db.transaction(async (trx) => {
    const offer = await Offer.query(trx).insertAndFetch({
      id: newId('ofr'),
      pair_id: contact.pair_id,
      document_id: document.id,
      document_name: document.name,
      from_tenant_id: caller.tenant.id,
      from_principal_id: caller.principal.id,
      from_api_key_id: caller.apiKey.id,
      from_contact_id: contact.id,
      from_email: normalizeEmail(caller.principal.email),
      to_tenant_id: counterparty.tenant_id,
      to_principal_id: counterparty.id,
      to_contact_id: other.id,
      to_email: normalizeEmail(counterparty.email),
      terms: input.terms,
      pre_sign_hash: document.current_sha256,
      human_signature_required: input.human_signature_required ?? false,
      expires_at: new Date(Date.now() + deps.config.durations.offerMs),
      status: 'pending',
    });
    await recordAudit(trx, {
      tenantId: offer.from_tenant_id,
      documentId: document.id,
      actor,
      action: 'offer.created',
      data: { offer_id: offer.id, to_email: offer.to_email, pre_sign_hash: offer.pre_sign_hash },
    });
    await emitEvent(trx, offer.to_tenant_id, 'offer.received', offerEventData(offer, offer.to_contact_id), offer.to_contact_id);
    await emitEvent(trx, offer.from_tenant_id, 'offer.sent', offerEventData(offer, offer.from_contact_id), offer.from_contact_id);
    await startAfterCommit(deps, trx, starts.offer(offer));
    return offer;
  });
}

/** POST /offers/:id/ack: the counterparty has seen the offer (pending → acknowledged; again: unchanged). */
export async function ackOffer(deps: OfferDeps, caller: Caller, id: string, actor: Actor): Promise<Offer> {
  checkOffersFlag(deps);
  const offer = await inboundOffer(deps.db, caller, id);
  if (offer.status === 'acknowledged') return offer;
  checkOpen(offer);
  if (offer.status !== 'pending') throw errors.invalidState(t('errors.offers.ack_not_pending', { status: offer.status }));
  return deps.db.transaction(async (trx) => {
    const acked = await Offer.query(trx)
      .findById(id)
      .where({ status: 'pending' })
      .patch({ status: 'acknowledged', acknowledged_at: new Date() });
    const current = (await Offer.query(trx).findById(id))!;
    if (acked) await tellBothSides(trx, current, 'offer.acked', {}, actor);
    else if (current.status !== 'acknowledged') throw errors.invalidState(t('errors.offers.offer_is', { status: current.status }));
    return current;
  });
}

/** Moves an offer to declined once, with `offer.declined` to both sides. */
export async function markDeclined(trx: Knex.Transaction, offerId: string, actor: Actor, reason: string): Promise<boolean> {
  const declined = await Offer.query(trx)
    .findById(offerId)
    .whereIn('status', OFFER_OPEN)
    .whereNull('apply_id')
    .patch({ status: 'declined', declined_at: new Date() });
  if (declined) await tellBothSides(trx, (await Offer.query(trx).findById(offerId))!, 'offer.declined', { reason }, actor);
  return declined > 0;
}

/**
 * POST /offers/:id/decline: nothing is signed. A decline while escalated also declines the sign
 * request waiting for the principal, so the confirm link no longer signs.
 */
export async function declineOffer(deps: OfferDeps, caller: Caller, id: string, actor: Actor): Promise<Offer> {
  checkOffersFlag(deps);
  const offer = await inboundOffer(deps.db, caller, id);
  checkOpen(offer);
  if (offer.apply_id) throw errors.invalidState(t('errors.offers.being_accepted'));
  await deps.db.transaction(async (trx) => {
    const request = offer.sign_request_id ? await SignRequest.query(trx).findById(offer.sign_request_id).forUpdate() : undefined;
    if (request?.status === 'confirming' || request?.status === 'applied') throw errors.invalidState(t('errors.offers.confirmed_in_app'));
    if (request?.status === 'open') {
      await request.$query(trx).patch({ status: 'declined', decided_at: new Date() });
      await recordAudit(trx, {
        tenantId: request.tenant_id,
        documentId: request.document_id,
        actor,
        action: 'sign_request.declined',
        data: { sign_request_id: request.id, offer_id: offer.id },
      });
    }
    if (!(await markDeclined(trx, id, actor, 'declined by the counterparty'))) {
      const current = (await Offer.query(trx).findById(id))!;
      if (current.apply_id) throw errors.invalidState(t('errors.offers.decline_being_accepted'));
      throw errors.invalidState(t('errors.offers.decline_not_open', { status: current.status }));
    }
  });
  // The workflows read the decline from the database; the signals only end their waits early.
  const requestId = offer.sign_request_id;
  if (requestId)
    await bestEffort(deps.workflows, `decline signal to ${requestId}`, () => deps.workflows.decideSignRequest(requestId, 'decline'));
  await bestEffort(deps.workflows, `wake-up of ${offer.id}`, () => deps.workflows.wakeOffer(offer.id));
  return (await Offer.query(deps.db).findById(id))!;
}
