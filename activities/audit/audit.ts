import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/connect';
import { type ActorType, AuditEvent } from '../../db/models';
import { newId } from '../../lib/ids';
import { AUDIT_DATA, type AuditAction, type AuditData } from './payloads';

export interface Actor {
  type: ActorType;
  id?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

export { AUDIT_ACTIONS, type AuditAction } from './payloads';

/** What an audit line says: who did what, with the data its action's schema (payloads.ts) takes. */
export type AuditStatement<A extends AuditAction = AuditAction> = {
  [K in A]: { actor: Actor; action: K; data: AuditData<K> };
}[A];

/** One audit line to record: the statement, in a tenant and (where there is one) on a document. */
export type AuditEntry<A extends AuditAction = AuditAction> = AuditStatement<A> & { tenantId: string; documentId?: string | null };

/**
 * One line of the audit trail, written in the transaction of the change it records: it takes a
 * transaction, so "the change committed but its audit line did not" cannot be written.
 */
export async function recordAudit(trx: Knex.Transaction, entry: AuditEntry): Promise<void> {
  // Checked before the transaction is touched: a line that does not match its schema writes nothing.
  const row = auditRow(trx, entry);
  await AuditEvent.query(trx).insert(row);
}

/**
 * The row of one audit line, its data checked against its action's schema: for a caller that writes
 * it together with the change it records, in one statement (db/one-statement.ts).
 */
export function auditRow(trx: Knex | Knex.Transaction, entry: AuditEntry) {
  const checked = AUDIT_DATA[entry.action].safeParse(entry.data);
  if (!checked.success) throw new Error(`${entry.action} audit data does not match its schema: ${z.prettifyError(checked.error)}`);
  return {
    id: newId('aud'),
    tenant_id: entry.tenantId,
    document_id: entry.documentId ?? null,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id ?? null,
    action: entry.action,
    ip: entry.actor.ip ?? null,
    user_agent: entry.actor.userAgent ? entry.actor.userAgent.slice(0, 500) : null,
    data: entry.data,
    // The time of this statement, not of the transaction's start (now()): lines written together (a
    // document created and sent at once, an apply and its completion) keep their order in the trail.
    created_at: trx.raw('clock_timestamp()') as unknown as Date,
  };
}

/** recordAudit's insert, not yet run: for a caller that writes it with the change it records in one statement (db/one-statement.ts). */
export function auditWrite(trx: Knex | Knex.Transaction, entry: AuditEntry) {
  const row = auditRow(trx, entry);
  return trx(AuditEvent.tableName).insert({ ...row, data: JSON.stringify(row.data) });
}

/** Actions that record what someone saw or was sent, with no change of state to commit beside them. */
type Observation = Extract<
  AuditAction,
  | 'document.viewed'
  | 'sign.code_sent'
  | 'sign.email_verified'
  | 'login.code_sent'
  | 'code.locked'
  | 'mail.failed'
  | 'mail.sent'
  | 'transfer.downloads_minted'
>;

/** An audit line for an observation (a view, a code sent, a mail that failed): it stands alone. */
export async function recordObservation(db: Db, entry: AuditEntry<Observation>): Promise<void> {
  await db.transaction((trx) => recordAudit(trx, entry));
}
