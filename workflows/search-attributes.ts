import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * What an operator finds work by in the Temporal UI or CLI (docs/operations.md): ids, kinds, states
 * and deadlines only, never an e-mail address or a secret (docs/decisions/0022-declared-once.md). Set when the service
 * starts a workflow (workflows/labels.ts) and kept current by the workflow (workflows/operator-view.ts).
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
