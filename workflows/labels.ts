/**
 * What a workflow the service starts carries for operators (docs/operations.md): its search
 * attributes (workflows/search-attributes.ts) and a one-line summary (Temporal user metadata). Ids,
 * kinds, states, deadlines and document names only: never an e-mail address, a token or a secret
 * (docs/decisions/0022-declared-once.md). Client side only, like workflows/client.ts.
 */
import type { SearchAttributePair } from '@temporalio/common';
import type { BulkSend, Delivery, Document, MailMessage, Offer, SignRequest, Transfer } from '../db/models';
import type { Logger } from '../lib/log';
import { SvcDeadline, SvcKind, SvcPrincipalId, SvcRelatedId, SvcResourceId, SvcState, SvcTenantId } from './search-attributes';

type WorkKind = 'bulk' | 'document' | 'sign-request' | 'offer' | 'transfer' | 'mail' | 'webhook-delivery' | 'relay';

/** What the service knows of a piece of work when it starts its workflow. */
interface WorkLabels {
  kind: WorkKind;
  resourceId: string;
  tenantIds?: string[];
  principalIds?: string[];
  relatedIds?: string[];
  state: string;
  deadline?: Date;
}

/** The search attributes a workflow starts with. */
function workAttributes(labels: WorkLabels): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: SvcKind, value: labels.kind },
    { key: SvcResourceId, value: labels.resourceId },
    { key: SvcState, value: labels.state },
  ];
  if (labels.tenantIds?.length) pairs.push({ key: SvcTenantId, value: [...new Set(labels.tenantIds)] });
  if (labels.principalIds?.length) pairs.push({ key: SvcPrincipalId, value: [...new Set(labels.principalIds)] });
  if (labels.relatedIds?.length) pairs.push({ key: SvcRelatedId, value: [...new Set(labels.relatedIds)] });
  if (labels.deadline) pairs.push({ key: SvcDeadline, value: labels.deadline });
  return pairs;
}

/** The start options that label a workflow. */
export interface StartLabels {
  typedSearchAttributes?: SearchAttributePair[];
  staticSummary: string;
}

function label(labels: WorkLabels, summary: string): StartLabels {
  return { typedSearchAttributes: workAttributes(labels), staticSummary: summary };
}

/** The labels of each kind of work, from the row the rule passes to its start. */
export const workLabels = {
  document(document: Pick<Document, 'id' | 'tenant_id'> & Partial<Pick<Document, 'owner_principal_id' | 'name'>>, signers?: number) {
    const named = document.name === undefined ? `Document ${document.id}` : `Document ${JSON.stringify(document.name)} (${document.id})`;
    const count = signers === undefined ? '' : `: ${signers} signer${signers === 1 ? '' : 's'}`;
    return label(
      {
        kind: 'document',
        resourceId: document.id,
        tenantIds: [document.tenant_id],
        principalIds: document.owner_principal_id ? [document.owner_principal_id] : [],
        state: 'sent',
      },
      `${named} of tenant ${document.tenant_id}${count}`,
    );
  },

  signRequest(request: Pick<SignRequest, 'id' | 'tenant_id' | 'principal_id' | 'document_id' | 'expires_at'>) {
    return label(
      {
        kind: 'sign-request',
        resourceId: request.id,
        tenantIds: [request.tenant_id],
        principalIds: [request.principal_id],
        relatedIds: [request.document_id],
        state: 'open',
        deadline: request.expires_at,
      },
      `L1 sign request ${request.id} on ${request.document_id}: principal ${request.principal_id} to confirm by ${request.expires_at.toISOString()}`,
    );
  },

  offer(
    offer: Pick<Offer, 'id' | 'from_tenant_id' | 'to_tenant_id' | 'from_principal_id' | 'to_principal_id' | 'document_id' | 'expires_at'>,
  ) {
    return label(
      {
        kind: 'offer',
        resourceId: offer.id,
        tenantIds: [offer.from_tenant_id, offer.to_tenant_id],
        principalIds: [offer.from_principal_id, offer.to_principal_id],
        relatedIds: [offer.document_id],
        state: 'pending',
        deadline: offer.expires_at,
      },
      `Offer ${offer.id} on ${offer.document_id} from principal ${offer.from_principal_id} to ${offer.to_principal_id}, open until ${offer.expires_at.toISOString()}`,
    );
  },

  mail(mail: Pick<MailMessage, 'id' | 'tenant_id' | 'document_id' | 'purpose'>) {
    return label(
      {
        kind: 'mail',
        resourceId: mail.id,
        tenantIds: mail.tenant_id ? [mail.tenant_id] : [],
        relatedIds: mail.document_id ? [mail.document_id] : [],
        state: 'queued',
      },
      `Mail ${mail.id} (${mail.purpose})${mail.document_id ? ` about ${mail.document_id}` : ''}${mail.tenant_id ? ` of tenant ${mail.tenant_id}` : ''}`,
    );
  },

  transfer(transfer: Pick<Transfer, 'id' | 'tenant_id' | 'principal_id' | 'mode' | 'document_id'>) {
    const unlock = {
      share: 'released at offer',
      sign: `unlocks when ${transfer.document_id} is signed`,
      accept: 'unlocks when every recipient accepts',
    };
    return label(
      {
        kind: 'transfer',
        resourceId: transfer.id,
        tenantIds: [transfer.tenant_id],
        principalIds: [transfer.principal_id],
        relatedIds: transfer.document_id ? [transfer.document_id] : [],
        state: 'offered',
      },
      `Transfer ${transfer.id} of tenant ${transfer.tenant_id}: ${unlock[transfer.mode]}`,
    );
  },

  delivery(delivery: Pick<Delivery, 'id' | 'tenant_id' | 'target_kind' | 'target_id' | 'event_id'>, giveUpMs: number) {
    return label(
      {
        kind: 'webhook-delivery',
        resourceId: delivery.id,
        tenantIds: [delivery.tenant_id],
        relatedIds: [delivery.target_id, delivery.event_id],
        state: 'pending',
        deadline: new Date(Date.now() + giveUpMs),
      },
      `Delivery ${delivery.id} of event ${delivery.event_id} to ${delivery.target_kind} ${delivery.target_id} (tenant ${delivery.tenant_id})`,
    );
  },

  bulk(bulk: Pick<BulkSend, 'id' | 'tenant_id' | 'principal_id' | 'name' | 'total'>) {
    return label(
      { kind: 'bulk', resourceId: bulk.id, tenantIds: [bulk.tenant_id], principalIds: [bulk.principal_id], state: 'running' },
      `Bulk send ${JSON.stringify(bulk.name)} (${bulk.id}) of tenant ${bulk.tenant_id}: ${bulk.total} document${bulk.total === 1 ? '' : 's'}`,
    );
  },

  relay(workflowId: string) {
    return label({ kind: 'relay', resourceId: workflowId, state: 'running' }, 'Outbox relay: moves committed events to their deliveries');
  },
} satisfies Record<string, (...args: never[]) => StartLabels>;

/** Whether an error is Temporal refusing search attributes it does not know (not registered on this cluster). */
function unknownAttributes(error: unknown): boolean {
  for (let cause = error as { message?: unknown; cause?: unknown } | undefined, depth = 0; cause && depth < 5; depth += 1) {
    if (typeof cause.message === 'string' && /search attribute/i.test(cause.message)) return true;
    cause = cause.cause as typeof cause;
  }
  return false;
}

/** How long starts go without the attributes once the cluster refused them, before trying them again. */
const RETRY_ATTRIBUTES_MS = 60_000;

/**
 * Starts with the labels; on a cluster where the service's search attributes are not registered
 * (docs/operations.md), the start is made again without them (the summary stays) and that is said
 * once in the log, so missing registration costs findability, never the work itself. They are tried
 * again a minute later (a worker booting registers them). The workflows upsert only when they
 * started with them.
 */
export function labelledStarts(log?: Logger) {
  let refusedAt: number | undefined;
  let said = false;
  return async <T>(labels: StartLabels, start: (labels: StartLabels) => Promise<T>): Promise<T> => {
    if (refusedAt !== undefined && Date.now() - refusedAt < RETRY_ATTRIBUTES_MS) return start({ staticSummary: labels.staticSummary });
    try {
      return await start(labels);
    } catch (error) {
      if (!unknownAttributes(error)) throw error;
      refusedAt = Date.now();
      if (said) return start({ staticSummary: labels.staticSummary });
      said = true;
      log?.error(
        'the Temporal cluster does not know the service search attributes (SvcTenantId …): workflows start without them; register them (docs/operations.md)',
        { error: (error as Error).message },
      );
      return start({ staticSummary: labels.staticSummary });
    }
  };
}
