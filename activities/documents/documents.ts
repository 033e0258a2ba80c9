import type { Knex } from 'knex';
import type { QueryBuilder } from 'objection';
import type { Db } from '../../db/connect';
import { type Apply, Document, DocumentRevision, DocumentSigner } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import { page } from '../../lib/paging';
import type { Caller } from '../accounts/accounts';
import { normalizeEmail } from '../accounts/accounts';
import { type Actor, recordAudit } from '../audit/audit';
import { lockDriveFiles } from '../drive/drive';
import { pdfStep } from './pdf-errors';
import type { PrefillValues } from './prefill';
import { type DocumentDeps, type DocumentSourceInput, prefilled, resolveSource } from './source';

export type { DocumentDeps };

import type { DocumentWaits } from './waits';

export interface SignerInput {
  name: string;
  email: string;
}

export interface DocumentWithSigners<D extends ShownDocument = Document> {
  document: D;
  signers: DocumentSigner[];
}

/** A document as the API shows it (GET /documents/:id, the lists): every column but its widgets, which no answer shows. */
export type ShownDocument = Omit<Document, 'widgets'>;

/**
 * The columns of a ShownDocument, named (not `*`): a read for an answer skips the widgets (10 KB of
 * JSON for the sample NDA, a tenth of a GET's CPU to parse), and a prepared statement keeps its result
 * type when a migration adds a column.
 */
export const SHOWN_DOCUMENT_COLUMNS = [
  'id',
  'tenant_id',
  'owner_principal_id',
  'created_by_key_id',
  'template_id',
  'name',
  'status',
  'strict_order',
  'roles',
  'page_count',
  'original_sha256',
  'current_sha256',
  'current_revision',
  'created_at',
  'sent_at',
  'completed_at',
  'declined_at',
  'receipt_jws',
  'drive_file_id',
  'expires_at',
  'reminders',
  'expired_at',
  'voided_at',
  'void_reason',
] as const satisfies ReadonlyArray<keyof ShownDocument>;

export function agentActor(caller: Caller, request?: { ip?: string; userAgent?: string }): Actor {
  return { type: 'agent', id: caller.apiKey.id, ip: request?.ip, userAgent: request?.userAgent };
}

export async function signersOf(db: Db | Knex.Transaction, documentId: string): Promise<DocumentSigner[]> {
  return DocumentSigner.query(db).where({ document_id: documentId }).orderBy('position');
}

function checkSignerCount(existing: number, adding: number, roles: string[]): void {
  if (existing + adding > roles.length) {
    throw errors.invalidRequest(
      t('errors.documents.too_many_signers', { count: roles.length, roles: roles.join(', '), signers: existing + adding }),
      [{ path: 'signers', message: `at most ${roles.length - existing} more` }],
    );
  }
}

function signerRows(document: Document, signers: SignerInput[], startAt: number) {
  return signers.map((signer, index) => ({
    id: newId('sgn'),
    document_id: document.id,
    tenant_id: document.tenant_id,
    position: startAt + index,
    role: document.roles[startAt + index],
    name: signer.name.trim(),
    email: normalizeEmail(signer.email),
  }));
}

/**
 * Records the start of a sent document's workflow in the send's transaction (activities/workflow-starts.ts
 * startAfterCommit): the workflow starts once the send committed.
 */
export type StartDocument = (trx: Knex.Transaction, document: Document, signers: number) => Promise<void>;

/**
 * A draft document from a template, or from a PDF in the principal's Drive with the widgets given:
 * the PDF sealed as revision 0 (every PDF the service hands out is sealed), widgets and roles copied,
 * signers given roles in order. With `send`, it is also sent in the same transaction: either it is
 * sent or nothing is left behind.
 */
export async function createDocument(
  deps: DocumentDeps,
  caller: Caller,
  input: {
    source: DocumentSourceInput;
    name: string;
    signers: SignerInput[];
    strictOrder?: boolean;
    /** Its expiry and reminder schedule, checked (waits.ts checkWaits). */
    waits?: DocumentWaits;
    /** Fields the sender fills by name, locked (prefill.ts): stamped into the first revision. */
    values?: PrefillValues;
  },
  actor: Actor,
  send?: StartDocument,
  /** Runs in the document's transaction before it is sent (a bulk item records its document in it; throwing undoes both). */
  made?: (trx: Knex.Transaction, document: Document) => Promise<void>,
): Promise<DocumentWithSigners> {
  const source = await prefilled(deps, await resolveSource(deps, caller, input.source), input.values);
  checkSignerCount(0, input.signers.length, source.roles);
  // Sealed on a PDF thread: the API's event loop never parses a PDF.
  const sealed = await pdfStep(async () => deps.pdf.seal(source.pdf, { reason: 'Document created' }, await deps.sealerConfig()));
  const sealedSha256 = await deps.blobs.put(sealed);
  return deps.db.transaction(async (trx) => {
    // The Drive file cannot be deleted while this document is made (its row is held until the commit).
    if (source.driveFileId) await lockDriveFiles(trx, caller.principal.id, [source.driveFileId]);
    const document = await Document.query(trx).insertAndFetch({
      id: newId('doc'),
      tenant_id: caller.tenant.id,
      owner_principal_id: caller.principal.id,
      created_by_key_id: caller.apiKey.id,
      template_id: source.templateId,
      drive_file_id: source.driveFileId,
      name: input.name.trim(),
      status: 'draft',
      strict_order: input.strictOrder ?? false,
      roles: source.roles,
      widgets: source.widgets,
      page_count: source.pageCount,
      original_sha256: sealedSha256,
      current_sha256: sealedSha256,
      current_revision: 0,
      expires_at: input.waits?.expiresAt ?? null,
      reminders: input.waits?.reminders ?? null,
    });
    const signers = signerRows(document, input.signers, 0);
    if (signers.length > 0) await DocumentSigner.query(trx).insert(signers);
    await DocumentRevision.query(trx).insert({
      document_id: document.id,
      revision: 0,
      kind: 'original',
      sealed_sha256: sealedSha256,
      unsealed_sha256: source.pdfSha256,
    });
    await recordAudit(trx, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor,
      action: 'document.created',
      data: {
        template_id: source.templateId,
        drive_file_id: source.driveFileId,
        name: document.name,
        sha256: sealedSha256,
        signers: signers.map((s) => ({ id: s.id, email: s.email, role: s.role })),
        ...(input.values && { prefilled: source.widgets.filter((widget) => widget.prefill).map((widget) => widget.id) }),
      },
    });
    if (made) await made(trx, document);
    if (send) return markSent(trx, document, actor, send);
    return { document, signers: await signersOf(trx, document.id) };
  });
}

/** The caller's own document, locked for a change; 404 for any other id. */
async function lockOwned(trx: Knex.Transaction, caller: Caller, id: string): Promise<Document> {
  const document = await Document.query(trx).findById(id).where({ tenant_id: caller.tenant.id }).forUpdate();
  if (!document) throw errors.notFound(t('errors.documents.no_such_document'));
  return document;
}

export async function addSigners(db: Db, caller: Caller, id: string, signers: SignerInput[], actor: Actor): Promise<DocumentWithSigners> {
  return db.transaction(async (trx) => {
    const document = await lockOwned(trx, caller, id);
    if (document.status !== 'draft')
      throw errors.invalidState(t('errors.documents.signers_can_added_only_draft', { status: document.status }));
    const existing = await signersOf(trx, id);
    checkSignerCount(existing.length, signers.length, document.roles);
    const rows = signerRows(document, signers, existing.length);
    await DocumentSigner.query(trx).insert(rows);
    await recordAudit(trx, {
      tenantId: document.tenant_id,
      documentId: id,
      actor,
      action: 'document.signers_added',
      data: { signers: rows.map((s) => ({ id: s.id, email: s.email, role: s.role })) },
    });
    return { document, signers: await signersOf(trx, id) };
  });
}

/**
 * draft → sent. `start` records the start of the document's workflow with the send, so a document is
 * never sent without one; it is made after the commit (or by the sweep, when Temporal cannot take it then).
 */
export async function sendDocument(db: Db, caller: Caller, id: string, actor: Actor, start: StartDocument): Promise<DocumentWithSigners> {
  return db.transaction(async (trx) => markSent(trx, await lockOwned(trx, caller, id), actor, start));
}

/** draft → sent inside the caller's transaction, with the start of the document's workflow recorded in it. */
async function markSent(trx: Knex.Transaction, document: Document, actor: Actor, start: StartDocument): Promise<DocumentWithSigners> {
  if (document.status !== 'draft')
    throw errors.invalidState(t('errors.documents.only_draft_can_sent_document', { status: document.status }));
  if (document.expires_at && document.expires_at.getTime() <= Date.now())
    throw errors.invalidState(t('errors.documents.draft_expired', { expiresAt: document.expires_at.toISOString() }));
  const signers = await signersOf(trx, document.id);
  if (signers.length < document.roles.length) {
    const missing = document.roles.slice(signers.length);
    throw errors.invalidState(t('errors.documents.roles_without_signer', { missing: missing.join(', '), id: document.id }));
  }
  const sent = await document.$query(trx).patchAndFetch({ status: 'sent', sent_at: new Date() });
  await recordAudit(trx, {
    tenantId: document.tenant_id,
    documentId: document.id,
    actor,
    action: 'document.sent',
    data: { strict_order: document.strict_order },
  });
  await start(trx, sent, signers.length);
  return { document: sent, signers };
}

/** Owned documents, or inbound ones (sent to the caller's principal as a signer); 404 for anything else. */
export async function findVisibleDocument(db: Db, caller: Caller, id: string): Promise<DocumentWithSigners & { inbound: boolean }> {
  // One query: the document with its signers (and the state of each one's latest apply) joined, in signing order.
  const document = await Document.query(db)
    .withGraphJoined('signers.lastApply(applyState)')
    .modifiers({ applyState: selectApplyState })
    .findById(id)
    .orderBy('signers.position');
  const signers = document?.signers ?? [];
  delete document?.signers;
  return visibleTo(caller, document, signers);
}

/** The document as this caller may see it: their tenant's (outbound), or sent to them to sign (inbound); else 404. */
export function visibleTo<T extends DocumentWithSigners['signers'][number], D extends ShownDocument = Document>(
  caller: Caller,
  document: D | undefined,
  signers: T[],
): { document: D; signers: T[]; inbound: boolean } {
  if (document) {
    if (document.tenant_id === caller.tenant.id) return { document, signers, inbound: false };
    const isSigner = signers.some((signer) => signer.email === normalizeEmail(caller.principal.email));
    if (document.status !== 'draft' && isSigner) return { document, signers, inbound: true };
  }
  throw errors.notFound(t('errors.documents.no_such_document'));
}

/** The columns of a signer's latest apply that its state is shown from (never its input or images). */
function selectApplyState(query: QueryBuilder<Apply>) {
  query.select('id', 'status', 'error_code', 'error_message', 'created_at', 'applied_at', 'rejected_at');
}

export async function listDocuments(
  db: Db,
  caller: Caller,
  options: { limit: number; cursor?: string; direction: 'outbound' | 'inbound' },
) {
  const query = Document.query(db).select(SHOWN_DOCUMENT_COLUMNS.map((column) => `documents.${column}`));
  if (options.direction === 'outbound') {
    query.where('documents.tenant_id', caller.tenant.id);
  } else {
    query
      .whereNot('documents.status', 'draft')
      .whereExists(
        DocumentSigner.query(db)
          .whereColumn('document_signers.document_id', 'documents.id')
          .where('document_signers.email', normalizeEmail(caller.principal.email)),
      );
  }
  const { items, next_cursor } = await page(query, { limit: options.limit, cursor: options.cursor, table: 'documents' });
  const signers =
    items.length === 0
      ? []
      : await DocumentSigner.query(db)
          .withGraphJoined('lastApply(applyState)')
          .modifiers({ applyState: selectApplyState })
          .whereIn(
            'document_signers.document_id',
            items.map((d) => d.id),
          )
          .orderBy('document_signers.position');
  return {
    items: items.map((document): DocumentWithSigners<ShownDocument> & { inbound: boolean } => ({
      document,
      signers: signers.filter((s) => s.document_id === document.id),
      inbound: document.tenant_id !== caller.tenant.id,
    })),
    next_cursor,
  };
}
