import type { Knex } from 'knex';
import { Event } from '../../db/models';
import { newId } from '../../lib/ids';

/** Event names of SPEC's Events table (plus document.declined and offer.expired), the only ones the service emits. */
export const EVENT_NAMES = [
  'contact.invited',
  'contact.accepted',
  'contact.revoked',
  'offer.received',
  'offer.sent',
  'offer.acked',
  'offer.declined',
  'offer.escalated',
  'offer.accepted',
  'offer.expired',
  'document.signed',
  'document.completed',
  'document.declined',
  'transfer.released',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** Contact and offer events also go to the contact's inbox_url (SPEC: Events). */
export function isContactEvent(event: string): boolean {
  return event.startsWith('contact.') || event.startsWith('offer.');
}

/**
 * Writes an event into the outbox. Call it with the transaction of the change that caused the
 * event, so the two commit or fail together; delivery reads the outbox afterwards.
 */
export async function emitEvent(
  trx: Knex.Transaction,
  tenantId: string,
  event: EventName,
  data: Record<string, unknown>,
  /** For contact and offer events: the side of the contact whose inbox_url also hears of it. */
  contactId?: string,
): Promise<Event> {
  // One statement (insert … returning), not insertAndFetch's insert then select: events are written
  // in the transactions of the changes they report, applies among them.
  return Event.query(trx)
    .insert({ id: newId('evt'), tenant_id: tenantId, event, data, contact_id: contactId ?? null })
    .returning('*');
}
