// A sent document's expiry: its workflow's timer runs this at expires_at.
import type { Db } from '../../db/connect';
import { Document } from '../../db/models';
import { recordAudit } from '../audit/audit';
import { emitEvent } from '../events/outbox';
import { settleLinkedTransfers } from '../transfers/release';
import type { Workflows } from '../workflows';
import { endOpenWork, wakeEndedWork } from './ending';

/**
 * sent → expired once expires_at passed, in one transaction with its audit line, the event
 * `document.expired`, and the end of its open L1 requests and offers; then its sign-to-unlock
 * packages are blocked for good (as for a decline) and the workflows of what ended are woken. Safe to
 * repeat: a document no longer sent (completed, declined, voided, expired) is answered as it is.
 */
export async function expireDocument(
  deps: { db: Db; workflows: Workflows },
  documentId: string,
  now = new Date(),
): Promise<{ status: string }> {
  const outcome = await deps.db.transaction(async (trx) => {
    const document = await Document.query(trx).findById(documentId).forUpdate();
    if (!document) return { status: 'missing' };
    if (document.status !== 'sent' || !document.expires_at || document.expires_at.getTime() > now.getTime())
      return { status: document.status };
    await document.$query(trx).patch({ status: 'expired', expired_at: now });
    const ended = await endOpenWork(trx, document, {
      code: 'expired',
      message: `The document expired unsigned at ${document.expires_at.toISOString()}.`,
    });
    await recordAudit(trx, {
      tenantId: document.tenant_id,
      documentId,
      actor: { type: 'system' },
      action: 'document.expired',
      data: { expires_at: document.expires_at.toISOString(), sign_requests: ended.signRequests, offers: ended.offers },
    });
    await emitEvent(trx, document.tenant_id, 'document.expired', {
      document_id: documentId,
      name: document.name,
      expires_at: document.expires_at.toISOString(),
      expired_at: now.toISOString(),
    });
    return { status: 'expired', ended };
  });
  if (outcome.ended) {
    await wakeEndedWork(deps.workflows, outcome.ended);
    await settleLinkedTransfers(deps, documentId);
  }
  return { status: outcome.status };
}
