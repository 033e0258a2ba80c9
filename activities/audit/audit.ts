import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { type ActorType, AuditEvent } from '../../db/models';
import { newId } from '../../lib/ids';

export interface Actor {
  type: ActorType;
  id?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** Every action the audit trail records, the only ones it takes (as EVENT_NAMES for the outbox). */
export const AUDIT_ACTIONS = [
  'appearance.stored',
  'code.locked',
  'contact.accepted',
  'contact.invited',
  'contact.revoked',
  'document.completed',
  'document.created',
  'document.declined',
  'document.sent',
  'document.signed',
  'document.signers_added',
  'document.viewed',
  'drive.deleted',
  'drive.uploaded',
  'key.created',
  'key.revoked',
  'login.code_sent',
  'login.succeeded',
  'mail.failed',
  'mandate.consent_accepted',
  'mandate.granted',
  'mandate.revoked',
  'offer.accepted',
  'offer.acknowledged',
  'offer.created',
  'offer.declined',
  'offer.escalated',
  'offer.expired',
  'sign.code_sent',
  'sign.email_verified',
  'sign_request.applied',
  'sign_request.confirmed',
  'sign_request.created',
  'sign_request.declined',
  'sign_request.expired',
  'signature.rejected',
  'signature.submitted',
  'template.created',
  'transfer.accepted',
  'transfer.bound',
  'transfer.cancelled',
  'transfer.created',
  'transfer.downloads_minted',
  'transfer.offered',
  'transfer.released',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  tenantId: string;
  documentId?: string | null;
  actor: Actor;
  action: AuditAction;
  data?: Record<string, unknown>;
}

/**
 * One line of the audit trail, written in the transaction of the change it records: it takes a
 * transaction, so "the change committed but its audit line did not" cannot be written.
 */
export async function recordAudit(trx: Knex.Transaction, entry: AuditEntry): Promise<void> {
  await AuditEvent.query(trx).insert({
    id: newId('aud'),
    tenant_id: entry.tenantId,
    document_id: entry.documentId ?? null,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id ?? null,
    action: entry.action,
    ip: entry.actor.ip ?? null,
    user_agent: entry.actor.userAgent ? entry.actor.userAgent.slice(0, 500) : null,
    data: entry.data ?? {},
  });
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
  | 'transfer.downloads_minted'
>;

/** An audit line for an observation (a view, a code sent, a mail that failed): it stands alone. */
export async function recordObservation(db: Db, entry: AuditEntry & { action: Observation }): Promise<void> {
  await db.transaction((trx) => recordAudit(trx, entry));
}
