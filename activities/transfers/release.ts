import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Document, Transfer, TransferRecipient } from '../../db/models';
import { recordAudit } from '../audit/audit';
import { emitEvent } from '../events/outbox';
import type { Workflows } from '../workflows';

export interface ReleaseDeps {
  db: Db;
  workflows: Workflows;
}

/** Where an offered package stands: released, still waiting, or blocked for good (its document was declined, voided or expired). */
export type ReleaseState = 'released' | 'waiting' | 'blocked' | 'cancelled' | 'abandoned';

/**
 * Releases an offered package, once: `transfer.released` is emitted by the one transaction whose
 * conditional update moved it, so it is emitted exactly once however often this runs.
 */
async function release(trx: Knex.Transaction, transfer: Transfer): Promise<void> {
  const now = new Date();
  const moved = await Transfer.query(trx)
    .findById(transfer.id)
    .where({ status: 'offered' })
    .patch({ status: 'released', released_at: now });
  if (!moved) return;
  await recordAudit(trx, {
    tenantId: transfer.tenant_id,
    actor: { type: 'system' },
    action: 'transfer.released',
    data: { transfer_id: transfer.id, mode: transfer.mode },
  });
  await emitEvent(trx, transfer.tenant_id, 'transfer.released', {
    transfer_id: transfer.id,
    name: transfer.name,
    mode: transfer.mode,
    document_id: transfer.document_id,
    released_at: now.toISOString(),
  });
}

/**
 * Releases the package when what unlocks it holds (share: at once; sign-to-unlock: its document
 * completed; accept-to-unlock: every recipient accepted), in the caller's transaction, under the
 * package's row lock. A declined or voided document blocks it for good.
 */
export async function releaseIfReady(trx: Knex.Transaction, transferId: string): Promise<ReleaseState> {
  const transfer = await Transfer.query(trx).findById(transferId).forUpdate();
  if (!transfer) return 'abandoned';
  if (transfer.status === 'released' || transfer.status === 'cancelled') return transfer.status;
  if (transfer.status !== 'offered') return 'waiting';
  if (transfer.mode === 'sign') {
    const document = (await Document.query(trx).findById(transfer.document_id!))!;
    if (document.status === 'declined' || document.status === 'voided' || document.status === 'expired') {
      if (!transfer.blocked_reason)
        await transfer.$query(trx).patch({ blocked_reason: `The linked document was ${document.status}; the files will not be released.` });
      return 'blocked';
    }
    if (document.status !== 'completed') return 'waiting';
  }
  if (transfer.mode === 'accept') {
    const waiting = await TransferRecipient.query(trx).where({ transfer_id: transferId }).whereNull('accepted_at').resultSize();
    if (waiting > 0) return 'waiting';
  }
  await release(trx, transfer);
  return 'released';
}

/**
 * A document settled (completed, declined): its offered sign-to-unlock packages are released (or
 * blocked) now, and their waits woken. Run by the document's activities, so it is retried with them.
 */
export async function settleLinkedTransfers(deps: ReleaseDeps, documentId: string): Promise<void> {
  const linked = await Transfer.query(deps.db).where({ document_id: documentId, status: 'offered' });
  for (const transfer of linked) {
    await deps.db.transaction((trx) => releaseIfReady(trx, transfer.id));
    await deps.workflows.wakeTransfer(transfer.id);
  }
}
