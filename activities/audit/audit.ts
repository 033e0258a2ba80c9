import type { Knex } from 'knex';
import { type ActorType, AuditEvent } from '../../db/models';
import { newId } from '../../lib/ids';

export interface Actor {
  type: ActorType;
  id?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** One line of the audit trail, written in the transaction of what it records. */
export async function recordAudit(
  trx: Knex | Knex.Transaction,
  entry: { tenantId: string; documentId?: string | null; actor: Actor; action: string; data?: Record<string, unknown> },
): Promise<void> {
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
