// An offer's two parties: the event each side gets (with its audit line), and the checks that both
// still stand (an active contact each, the offeror's agent mandated). Below documents/ and signing/,
// which need them too (a document's end expires its offers; an L1 confirmation of an escalated offer).
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Contact, Offer } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { type Actor, type AuditAction, type AuditEntry, recordAudit } from '../audit/audit';
import { type EventName, emitEvent, isSealedLink } from '../events/outbox';
import { mandatesInForce } from '../mandates/mandates';

/** The offer's fields every event about it carries (SPEC: offer.received), seen from one side. */
export function offerEventData(offer: Offer, contactId: string) {
  return {
    offer_id: offer.id,
    contact_id: contactId,
    document_id: offer.document_id,
    document_name: offer.document_name,
    from_email: offer.from_email,
    to_email: offer.to_email,
    terms: offer.terms,
    pre_sign_hash: offer.pre_sign_hash,
    human_signature_required: offer.human_signature_required,
    expires_at: offer.expires_at.toISOString(),
    status: offer.status,
  };
}

/** An event to both sides of an offer, each with its own contact id (and its inbox), and an audit line each. */
export async function tellBothSides(
  trx: Knex.Transaction,
  offer: Offer,
  event: EventName,
  extra: Record<string, unknown>,
  actor: Actor,
): Promise<void> {
  for (const [tenantId, contactId] of [
    [offer.from_tenant_id, offer.from_contact_id],
    [offer.to_tenant_id, offer.to_contact_id],
  ] as const) {
    await emitEvent(trx, tenantId, event, { ...offerEventData(offer, contactId), ...extra }, contactId);
  }
  const action = AUDIT_OF[event];
  if (action)
    await recordAudit(trx, {
      tenantId: offer.to_tenant_id,
      documentId: offer.document_id,
      actor,
      action,
      // The audit keeps what happened, not a link that opens it.
      data: { offer_id: offer.id, ...Object.fromEntries(Object.entries(extra).filter(([, value]) => !isSealedLink(value))) },
    } as AuditEntry);
}

const AUDIT_OF: Partial<Record<EventName, AuditAction>> = {
  'offer.acked': 'offer.acknowledged',
  'offer.declined': 'offer.declined',
  'offer.escalated': 'offer.escalated',
  'offer.accepted': 'offer.accepted',
  'offer.expired': 'offer.expired',
};

/** SPEC: both principals need an active contact before an offer is made or accepted. */
export async function checkContactActive(db: Db | Knex.Transaction, contactIds: string[]): Promise<void> {
  const contacts = await Contact.query(db).whereIn('id', contactIds);
  const inactive = contacts.find((contact) => contact.status !== 'active');
  if (inactive) throw errors.invalidState(t('errors.offers.contact_not_active', { status: inactive.status }));
  if (contacts.length !== contactIds.length) throw errors.invalidState(t('errors.offers.contact_gone'));
}

/** SPEC: both principals need an active mandate: the offeror's agent must still hold one. */
export async function checkOfferorMandate(db: Db, offer: Offer): Promise<void> {
  if ((await mandatesInForce(db, offer.from_api_key_id)).length === 0)
    throw errors.mandateInactive(t('errors.offers.offeror_agent_no_longer_holds', { fromEmail: offer.from_email }));
}

/**
 * The principal confirmed an escalated offer in the app: before its apply, the offer must still be
 * escalated, the contact active and the offeror's agent mandated (SPEC: both principals need
 * an active contact and an active mandate), as for an accept by the agent.
 */
export async function checkEscalationStillValid(db: Db, offerId: string): Promise<void> {
  const offer = await Offer.query(db).findById(offerId);
  if (!offer) throw errors.notFound(t('errors.offers.offer_confirmation_no_longer_exists'));
  // A confirmation recorded before expires_at is carried out: expiry leaves an offer being confirmed alone.
  if (offer.status !== 'escalated')
    throw errors.invalidState(t('errors.offers.offer_confirmation_no_longer_applies', { status: offer.status }));
  await checkContactActive(db, [offer.from_contact_id, offer.to_contact_id]);
  await checkOfferorMandate(db, offer);
}
