import type { operations, webhooks } from './openapi';

/** The operations of the API, by their OpenAPI operationId. */
export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes. */
export type Body<K extends OperationId> = operations[K] extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

/** What an operation answers on success (200 or 201). */
export type Result<K extends OperationId> = operations[K]['responses'] extends infer R
  ? R extends { 200: infer A }
    ? JsonOf<A>
    : R extends { 201: infer B }
      ? JsonOf<B>
      : never
  : never;

/** The query parameters an operation takes. */
export type Query<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;

/** The items of a list operation's page. */
export type Item<K extends OperationId> = Result<K> extends { data: Array<infer T> } ? T : never;

export type Me = Result<'getMe'>;
export type Flags = Result<'getFlags'>;
export type Mandate = Result<'getMandate'>;
export type SignRequest = Result<'getSignRequest'>;
export type SignResult = Result<'signAsPrincipal'>;
export type Template = Result<'getTemplate'>;
export type TemplateCreate = Body<'createTemplate'>;
export type TemplateUpdate = Body<'updateTemplate'>;
export type Document = Result<'getDocument'>;
export type DocumentCreate = Body<'createDocument'>;
export type Download = Result<'downloadDocument'>;
export type Reminded = Result<'remindSigners'>;
export type Contact = Result<'getContact'>;
export type ContactWithSecret = Result<'inviteContact'>;
export type Offer = Result<'getOffer'>;
export type Webhook = Item<'listWebhooks'>;
export type WebhookCreated = Result<'createWebhook'>;
export type DriveFile = Result<'getDriveFile'>;
export type Transfer = Result<'getTransfer'>;
export type TransferCreate = Body<'createTransfer'>;
export type OfferedTransfer = Result<'offerTransfer'>;
export type Claim = Result<'claimTransfer'>;
export type PublicTransfer = Result<'getPublicTransfer'>;
export type Downloads = Result<'mintTransferDownloads'>;
export type VerifyReport = Result<'verifyPdf'>;
export type BulkCreate = Body<'bulkSend'>;
/** The 202 of a bulk send: its id, status and counts. */
export type BulkAccepted = JsonOf<operations['bulkSend']['responses'][202]>;
export type Bulk = Result<'getBulk'>;

/** One page of a list: its items and the cursor of the next page (null on the last). */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** The events a webhook (or, for contact and offer events, an inbox_url) receives, by name. */
export type WebhookEventName = keyof webhooks;
/**
 * One event as it is POSTed, `{id, event, created_at, data}`: `WebhookEvent<'document.signed'>`, or
 * without a name the union of all of them (narrow it on `event`).
 */
export type WebhookEvent<E extends WebhookEventName = WebhookEventName> = E extends WebhookEventName
  ? webhooks[E]['post']['requestBody']['content']['application/json']
  : never;
