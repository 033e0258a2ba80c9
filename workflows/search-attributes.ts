import { defineSearchAttributeKey, type SearchAttributePair, SearchAttributeType } from '@temporalio/common';

/**
 * What an operator finds work by in the Temporal UI or CLI (docs/operations.md): ids, kinds, states
 * and deadlines only, never an e-mail address or a secret (docs/decisions.md). Set when the service
 * starts a workflow (workflows/client.ts) and kept current by the workflow (workflows/operator-view.ts).
 * Tenant and principal are lists: an offer belongs to both sides.
 */
export const SvcTenantId = defineSearchAttributeKey('SvcTenantId', SearchAttributeType.KEYWORD_LIST);
export const SvcPrincipalId = defineSearchAttributeKey('SvcPrincipalId', SearchAttributeType.KEYWORD_LIST);
/** The resource the workflow carries: the document, sign request, offer, transfer, mail or delivery id. */
export const SvcResourceId = defineSearchAttributeKey('SvcResourceId', SearchAttributeType.KEYWORD);
/** Ids the resource hangs from: a sign request's or offer's document, a mail's document, a delivery's webhook. */
export const SvcRelatedId = defineSearchAttributeKey('SvcRelatedId', SearchAttributeType.KEYWORD_LIST);
export const SvcKind = defineSearchAttributeKey('SvcKind', SearchAttributeType.KEYWORD);
/** The resource's state in SPEC's words (a document `sent`, a sign request `confirming` …). */
export const SvcState = defineSearchAttributeKey('SvcState', SearchAttributeType.KEYWORD);
/** The next expiry, where there is one (a sign request's or offer's expires_at, a delivery's give-up time). */
export const SvcDeadline = defineSearchAttributeKey('SvcDeadline', SearchAttributeType.DATETIME);

/** Every attribute, for registration: `temporal operator search-attribute create --name … --type …`. */
export const SEARCH_ATTRIBUTES = [SvcTenantId, SvcPrincipalId, SvcResourceId, SvcRelatedId, SvcKind, SvcState, SvcDeadline] as const;

/** The type names the Temporal CLI and the operator API take. */
export const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<SearchAttributeType, string> = {
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
};

export const WORK_KINDS = ['document', 'sign-request', 'offer', 'transfer', 'mail', 'webhook-delivery', 'relay'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** What the service knows of a piece of work when it starts its workflow. */
export interface WorkLabels {
  kind: WorkKind;
  resourceId: string;
  tenantIds?: string[];
  principalIds?: string[];
  relatedIds?: string[];
  state: string;
  deadline?: Date;
}

/** The search attributes a workflow starts with. */
export function workAttributes(labels: WorkLabels): SearchAttributePair[] {
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
