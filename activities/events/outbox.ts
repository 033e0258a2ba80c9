import type { Knex } from 'knex';
import { z } from 'zod';
import { Event } from '../../db/models';
import { newId } from '../../lib/ids';
import { decryptSecret, encryptSecret } from '../../lib/secrets/encrypt';
import { EVENT_DATA, type EventData, type EventName } from './payloads';

export { EVENT_NAMES, type EventData, type EventName } from './payloads';

/** Contact and offer events also go to the contact's inbox_url (SPEC: Events). */
export function isContactEvent(event: string): boolean {
  return event.startsWith('contact.') || event.startsWith('offer.');
}

const SEALED_LINK = 'sealed-link:';
const LINK_PURPOSE = 'event-link';

/**
 * A link that carries a token (an accept_url, a confirm_url), as the outbox keeps it: sealed under
 * SVC_SECRET_KEY, so the events table holds no working link; openEventData opens it into the body.
 */
export function sealedLink(secret: Buffer, url: string): string {
  return `${SEALED_LINK}${encryptSecret(secret, LINK_PURPOSE, url)}`;
}

export function isSealedLink(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(SEALED_LINK);
}

/**
 * An event's data as receivers get it, its sealed links opened; a link sealed under a key no longer
 * configured is null (it was MACed with that key too, so it would not open anything).
 */
export function openEventData(secret: Buffer, data: Record<string, unknown>): Record<string, unknown> {
  const open = (value: unknown) => {
    if (!isSealedLink(value)) return value;
    try {
      return decryptSecret(secret, LINK_PURPOSE, (value as string).slice(SEALED_LINK.length));
    } catch {
      return null;
    }
  };
  return Object.fromEntries(Object.entries(data).map(([name, value]) => [name, open(value)]));
}

/**
 * Writes an event into the outbox. Call it with the transaction of the change that caused the
 * event, so the two commit or fail together; delivery reads the outbox afterwards.
 */
export async function emitEvent<E extends EventName>(
  trx: Knex.Transaction,
  tenantId: string,
  event: E,
  /** Checked against the event's schema (payloads.ts) here: an event that does not match is a bug, never sent. */
  data: EventData<E>,
  /** For contact and offer events: the side of the contact whose inbox_url also hears of it. */
  contactId?: string,
): Promise<Event> {
  const checked = EVENT_DATA[event].safeParse(data);
  if (!checked.success) throw new Error(`${event} event data does not match its schema: ${z.prettifyError(checked.error)}`);
  return writeEvent(trx, tenantId, event, data, contactId);
}

/**
 * One event to each of several tenants (the sender's and a signing principal's), checked once and
 * written in one statement: a tenant named twice hears it once. Answers the rows in the tenants' order.
 */
export async function emitEventTo<E extends EventName>(
  trx: Knex.Transaction,
  tenantIds: Iterable<string>,
  event: E,
  data: EventData<E>,
): Promise<Event[]> {
  const rows = eventRows(trx, tenantIds, event, data);
  if (rows.length === 0) return [];
  return Event.query(trx).insert(rows).returning('*');
}

/** emitEventTo's insert, not yet run: for a caller that writes it with the change it reports in one statement (db/one-statement.ts). */
export function eventWrite<E extends EventName>(trx: Knex | Knex.Transaction, tenantIds: Iterable<string>, event: E, data: EventData<E>) {
  const rows = eventRows(trx, tenantIds, event, data).map((row) => ({ ...row, data: JSON.stringify(row.data) }));
  return trx(Event.tableName).insert(rows);
}

/** The rows of one event to each tenant named (once each), its data checked against the event's schema. */
function eventRows<E extends EventName>(trx: Knex | Knex.Transaction, tenantIds: Iterable<string>, event: E, data: EventData<E>) {
  const checked = EVENT_DATA[event].safeParse(data);
  if (!checked.success) throw new Error(`${event} event data does not match its schema: ${z.prettifyError(checked.error)}`);
  return [...new Set(tenantIds)].map((tenantId) => ({
    id: newId('evt'),
    tenant_id: tenantId,
    event,
    data: data as Record<string, unknown>,
    contact_id: null,
    created_at: trx.raw('clock_timestamp()'),
  }));
}

/**
 * Writes an outbox row as it is, unchecked: the delivery machinery's own tests and benchmarks send
 * synthetic events with it; the rules emit through emitEvent.
 */
export async function writeEvent(
  trx: Knex.Transaction,
  tenantId: string,
  event: EventName,
  data: Record<string, unknown>,
  contactId?: string,
): Promise<Event> {
  // One statement (insert … returning), not insertAndFetch's insert then select: events are written
  // in the transactions of the changes they report, applies among them. Stamped when written, not when
  // the transaction began (now()): a transaction that began earlier and waited on a lock (a completion
  // waiting for the last apply) writes its event after the one it waited for, and is ordered after it.
  return Event.query(trx)
    .insert({ id: newId('evt'), tenant_id: tenantId, event, data, contact_id: contactId ?? null, created_at: trx.raw('clock_timestamp()') })
    .returning('*');
}
