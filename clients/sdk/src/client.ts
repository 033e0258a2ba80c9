// The Agents API for an agent (SvcClient): its calls by area; what they stand on is base.ts, the Drive
// and transfer calls transfers.ts, the waits on an apply or a bulk send waits.ts.
import { enc } from './base';
import { type DownloadedFile, type Progress, saveFiles } from './files';
import { FileCalls } from './transfers';
import type {
  Body,
  Bulk,
  BulkAccepted,
  BulkCreate,
  Contact,
  ContactWithSecret,
  Document,
  DocumentCreate,
  Download,
  Flags,
  Item,
  Mandate,
  Me,
  Offer,
  Page,
  Query,
  Reminded,
  Result,
  SignRequest,
  SignResult,
  Template,
  TemplateCreate,
  TemplateUpdate,
  VerifyReport,
  WebhookCreated,
} from './types';
import { type ApplyWait, type BulkWait, untilApplied, untilBulkCompleted } from './waits';

/**
 * The Agents API for an agent: one method per endpoint (SPEC's names where SPEC gives one), typed from
 * the service's OpenAPI document. Errors are thrown as SvcError with SPEC's `code`; network failures,
 * 429 and 5xx are retried with backoff, and every POST carries one Idempotency-Key for all its
 * attempts, so a retried call never applies twice. An API key is never intent to sign: the signing
 * calls work only inside a mandate the principal granted in the app.
 */
export class SvcClient extends FileCalls {
  // Account
  me(): Promise<Me> {
    return this.get('/v1/me');
  }
  flags(): Promise<Flags> {
    return this.get('/v1/flags');
  }
  health(): Promise<Result<'getHealth'>> {
    return this.get('/v1/health');
  }

  // Mandates and signing
  listMandates(query: Query<'listMandates'> = {}): Promise<Page<Item<'listMandates'>>> {
    return this.get('/v1/mandates', query);
  }
  iterateMandates(query: Omit<Query<'listMandates'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listMandates({ ...query, cursor }));
  }
  getMandate(id: string): Promise<Mandate> {
    return this.get(`/v1/mandates/${enc(id)}`);
  }
  /**
   * L2: applies the principal's stored appearance now, inside its L2 mandate (SPEC: POST
   * /documents/:id/sign). A signature still being applied when the service's wait ends (202
   * `processing`) is waited for (see ApplyWait): the answer is `applied`, or the refusal is thrown.
   */
  signAsPrincipal(documentId: string, reason: string, wait: ApplyWait = {}): Promise<SignResult> {
    return untilApplied(this.http, `/v1/documents/${enc(documentId)}/sign`, { reason }, wait);
  }
  /** L1: asks the principal to confirm in the app; answers the confirm_url it is e-mailed. */
  requestSign(documentId: string, reason: string): Promise<SignRequest> {
    return this.post(`/v1/documents/${enc(documentId)}/sign-requests`, { reason });
  }
  listSignRequests(documentId: string, query: Query<'listSignRequests'> = {}): Promise<Page<Item<'listSignRequests'>>> {
    return this.get(`/v1/documents/${enc(documentId)}/sign-requests`, query);
  }
  iterateSignRequests(documentId: string, query: Omit<Query<'listSignRequests'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listSignRequests(documentId, { ...query, cursor }));
  }
  getSignRequest(id: string): Promise<SignRequest> {
    return this.get(`/v1/sign-requests/${enc(id)}`);
  }

  // Templates and documents
  listTemplates(query: Query<'listTemplates'> = {}): Promise<Page<Item<'listTemplates'>>> {
    return this.get('/v1/templates', query);
  }
  iterateTemplates(query: Omit<Query<'listTemplates'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listTemplates({ ...query, cursor }));
  }
  getTemplate(id: string): Promise<Template> {
    return this.get(`/v1/templates/${enc(id)}`);
  }
  /** A template from a PDF in Drive (uploadAsset first), with its roles and widgets (needs the agent_editor flag). */
  createTemplate(body: TemplateCreate): Promise<Template> {
    return this.post('/v1/templates', body);
  }
  /** Changes a template's name, roles or widgets; documents already made keep theirs. */
  updateTemplate(id: string, body: TemplateUpdate): Promise<Template> {
    return this.http.request('PATCH', `/v1/templates/${enc(id)}`, { body });
  }
  /** Deletes a template for new documents; it stays readable by id, and its documents keep working. */
  deleteTemplate(id: string): Promise<Template> {
    return this.http.request('DELETE', `/v1/templates/${enc(id)}`);
  }
  createDocument(body: DocumentCreate): Promise<Document> {
    return this.post('/v1/documents', body);
  }
  listDocuments(query: Query<'listDocuments'> = {}): Promise<Page<Item<'listDocuments'>>> {
    return this.get('/v1/documents', query);
  }
  iterateDocuments(query: Omit<Query<'listDocuments'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listDocuments({ ...query, cursor }));
  }
  getDocument(id: string): Promise<Document> {
    return this.get(`/v1/documents/${enc(id)}`);
  }
  addSigners(id: string, signers: Body<'addSigners'>['signers']): Promise<Document> {
    return this.post(`/v1/documents/${enc(id)}/signers`, { signers });
  }
  sendDocument(id: string): Promise<Document> {
    return this.post(`/v1/documents/${enc(id)}/send`, { confirm: true });
  }
  /**
   * Bulk send: one document per item from a template, made (and with `send: true` sent) by the
   * service in the background; answers at once with the `bulk_id` (202). A retry of this call (its
   * Idempotency-Key) answers the same bulk. Follow it with bulk(id) or waitForBulk(id).
   */
  bulkSend(body: BulkCreate): Promise<BulkAccepted> {
    return this.post('/v1/documents/bulk', body);
  }
  /** A bulk send's status, counts and a page of its items (each a document id or an error). */
  bulk(id: string, query: Query<'getBulk'> = {}): Promise<Bulk> {
    return this.get(`/v1/bulk/${enc(id)}`, query);
  }
  /**
   * Polls a bulk send until it is `completed` (every item made or refused), calling `onProgress` with
   * each look, and answers it with all its items; throws a `timeout` SvcError after `timeoutMs`.
   */
  waitForBulk(id: string, options: BulkWait = {}): Promise<Bulk> {
    return untilBulkCompleted(id, (query) => this.bulk(id, query), options);
  }
  /** The document's audit trail, oldest first: who did what, when, from where (GET /documents/:id/audit). */
  getDocumentAudit(id: string, query: Query<'getDocumentAudit'> = {}): Promise<Page<Item<'getDocumentAudit'>>> {
    return this.get(`/v1/documents/${enc(id)}/audit`, query);
  }
  iterateDocumentAudit(id: string, query: Omit<Query<'getDocumentAudit'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.getDocumentAudit(id, { ...query, cursor }));
  }
  /** Voids a sent document: its sign links, open L1 requests and offers end; the pending signers are told `reason`. */
  voidDocument(id: string, reason: string): Promise<Document> {
    return this.post(`/v1/documents/${enc(id)}/void`, { reason });
  }
  /** Mails the pending signers (under strict order, the one whose turn it is) a reminder now; 429 `rate_limited` when one was reminded too recently. */
  remindSigners(id: string): Promise<Reminded> {
    return this.post(`/v1/documents/${enc(id)}/remind`, {});
  }
  /** A short-lived URL of the current sealed PDF. */
  downloadDocument(id: string): Promise<Download> {
    return this.get(`/v1/documents/${enc(id)}/download`);
  }
  /** Saves the current sealed PDF into `directory`, checking its SHA-256. */
  async saveDocument(id: string, directory: string, onProgress?: Progress): Promise<DownloadedFile> {
    const [document, link] = await Promise.all([this.getDocument(id), this.downloadDocument(id)]);
    const head = await this.http.fetchRaw(link.url, { method: 'HEAD' }).catch(() => undefined);
    const size = Number(head?.headers.get('content-length') ?? -1);
    const [saved] = await saveFiles(
      this.http,
      [{ name: `${document.name}.pdf`, size, sha256: link.sha256, url: link.url }],
      directory,
      (_, done) => onProgress?.(done, size),
    );
    return saved;
  }

  // Contacts and offers
  listContacts(query: Query<'listContacts'> = {}): Promise<Page<Item<'listContacts'>>> {
    return this.get('/v1/contacts', query);
  }
  iterateContacts(query: Omit<Query<'listContacts'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listContacts({ ...query, cursor }));
  }
  inviteContact(body: Body<'inviteContact'>): Promise<ContactWithSecret> {
    return this.post('/v1/contacts', body);
  }
  getContact(id: string): Promise<Contact> {
    return this.get(`/v1/contacts/${enc(id)}`);
  }
  acceptContact(id: string, body: Body<'acceptContact'> = {}): Promise<ContactWithSecret> {
    return this.post(`/v1/contacts/${enc(id)}/accept`, body);
  }
  acceptContactByToken(token: string, body: Omit<Body<'acceptContactByToken'>, 'token'> = {}): Promise<ContactWithSecret> {
    return this.post('/v1/contacts/accept', { ...body, token });
  }
  revokeContact(id: string): Promise<Contact> {
    return this.post(`/v1/contacts/${enc(id)}/revoke`);
  }
  listOffers(query: Query<'listOffers'> = {}): Promise<Page<Item<'listOffers'>>> {
    return this.get('/v1/offers', query);
  }
  iterateOffers(query: Omit<Query<'listOffers'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listOffers({ ...query, cursor }));
  }
  getOffer(id: string): Promise<Offer> {
    return this.get(`/v1/offers/${enc(id)}`);
  }
  /** Offers a sent document to a contact's principal, bound to the SHA-256 of its current PDF. */
  proposeContract(documentId: string, body: Body<'proposeContract'>): Promise<Offer> {
    return this.post(`/v1/documents/${enc(documentId)}/offers`, body);
  }
  ackOffer(id: string): Promise<Offer> {
    return this.post(`/v1/offers/${enc(id)}/ack`);
  }
  /** Signs now on the L2 path, or escalates to the principal (status `escalated`, with confirm_url). */
  /**
   * Accepts an offer: signs within an L2 mandate (waiting, as signAsPrincipal does, while its
   * signature is still being applied) or escalates to the principal.
   */
  acceptOffer(id: string, wait: ApplyWait = {}): Promise<Offer> {
    return untilApplied(this.http, `/v1/offers/${enc(id)}/accept`, {}, wait);
  }
  declineOffer(id: string): Promise<Offer> {
    return this.post(`/v1/offers/${enc(id)}/decline`);
  }
  escalateOffer(id: string): Promise<Offer> {
    return this.post(`/v1/offers/${enc(id)}/escalate`);
  }

  // Webhooks
  listWebhooks(query: Query<'listWebhooks'> = {}): Promise<Page<Item<'listWebhooks'>>> {
    return this.get('/v1/webhooks', query);
  }
  iterateWebhooks(query: Omit<Query<'listWebhooks'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listWebhooks({ ...query, cursor }));
  }
  createWebhook(body: Body<'createWebhook'>): Promise<WebhookCreated> {
    return this.post('/v1/webhooks', body);
  }
  deleteWebhook(id: string): Promise<Result<'deleteWebhook'>> {
    return this.http.request('DELETE', `/v1/webhooks/${enc(id)}`);
  }
  rotateWebhookSecret(id: string, body: Body<'rotateWebhookSecret'> = {}): Promise<WebhookCreated> {
    return this.post(`/v1/webhooks/${enc(id)}/rotate-secret`, body);
  }
  listWebhookDeliveries(id: string, query: Query<'listWebhookDeliveries'> = {}): Promise<Page<Item<'listWebhookDeliveries'>>> {
    return this.get(`/v1/webhooks/${enc(id)}/deliveries`, query);
  }

  // Verify
  /**
   * Checks any PDF (POST /v1/verify) as a relying party's validator does: `verdict` is `valid`,
   * `invalid` or `indeterminate` (only `valid` means valid), each signature with its ETSI indication,
   * trusted time, chain and the changes after it; and, for a file this service issued byte for byte,
   * its document, revision and signers.
   * Needs no key: a client made without one can call it. A key the client has is sent, so the call
   * counts against that key's rate limit rather than against the caller's address.
   */
  verifyPdf(pdf: Uint8Array): Promise<VerifyReport> {
    return this.http.request('POST', '/v1/verify', { raw: { bytes: pdf, type: 'application/pdf' }, readOnly: true });
  }
}
