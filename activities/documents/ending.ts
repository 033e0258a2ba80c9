// What a sent document takes with it when it ends unsigned (expired or voided): its open L1 sign
// requests and its open offers end in the same transaction, and their workflows are woken after it.
import type { Knex } from 'knex';
import { type Document, OFFER_OPEN, Offer, SignRequest } from '../../db/models';
import { bestEffort } from '../../lib/temporal';
import { recordAudit } from '../audit/audit';
import { tellBothSides } from '../offer-parties/parties';
import type { Workflows } from '../workflows';

/** Why the work on a document ended, as its sign requests and offers show it (their `error`). */
export interface EndedWhy {
  code: 'expired' | 'invalid_state';
  message: string;
}

export interface EndedWork {
  signRequests: string[];
  offers: string[];
}

/**
 * Ends, in the caller's transaction, the document's open L1 requests (→ `expired`, so their confirm
 * links no longer sign) and its offers nobody acted on (→ `expired`, event `offer.expired` to both
 * sides). Work already in flight (a confirmation being applied, an accept's apply) is left to its own
 * workflow: its apply is refused now that the document is no longer sent.
 */
export async function endOpenWork(trx: Knex.Transaction, document: Document, why: EndedWhy): Promise<EndedWork> {
  const now = new Date();
  const requests = await SignRequest.query(trx).where({ document_id: document.id, status: 'open' }).forUpdate();
  for (const request of requests) {
    await request.$query(trx).patch({ status: 'expired', decided_at: now, error_code: why.code, error_message: why.message });
    await recordAudit(trx, {
      tenantId: request.tenant_id,
      documentId: document.id,
      actor: { type: 'system' },
      action: 'sign_request.expired',
      data: { sign_request_id: request.id, document_id: document.id },
    });
  }
  const offers = await Offer.query(trx)
    .where({ document_id: document.id })
    .whereIn('status', [...OFFER_OPEN])
    .whereNull('apply_id')
    .forUpdate();
  const ended: string[] = [];
  for (const offer of offers) {
    const request = requests.find((r) => r.id === offer.sign_request_id);
    // An escalation the principal already confirmed is being applied: its workflow settles it.
    if (offer.sign_request_id && !request) {
      const linked = await SignRequest.query(trx).findById(offer.sign_request_id);
      if (linked?.status === 'confirming' || linked?.status === 'applied') continue;
    }
    const expired = await offer
      .$query(trx)
      .patchAndFetch({ status: 'expired', expired_at: now, error_code: why.code, error_message: why.message });
    await tellBothSides(trx, expired, 'offer.expired', {}, { type: 'system' });
    ended.push(offer.id);
  }
  return { signRequests: requests.map((r) => r.id), offers: ended };
}

/** After the commit: the workflows of what ended read it and finish (a lost wake-up only leaves them to their own deadline). */
export async function wakeEndedWork(workflows: Workflows, ended: EndedWork): Promise<void> {
  for (const id of ended.signRequests) await bestEffort(workflows, `wake-up of ${id}`, () => workflows.wakeSignRequest(id));
  for (const id of ended.offers) await bestEffort(workflows, `wake-up of ${id}`, () => workflows.wakeOffer(id));
}
