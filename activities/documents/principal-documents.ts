import type { QueryBuilder } from 'objection';
import type { Db } from '../../db/connect';
import { Document, DocumentSigner, type Principal, SignRequest } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { page } from '../../lib/paging';
import { normalizeEmail } from '../accounts/accounts';

/**
 * The documents a principal sees in the app: those they sent (by any of their keys) and those sent
 * to them as a signer (once sent); newest first.
 */
function visibleTo(db: Db, principal: Principal) {
  return Document.query(db).where((where) =>
    where
      .where('documents.owner_principal_id', principal.id)
      .orWhere((inbound) =>
        inbound
          .whereNot('documents.status', 'draft')
          .whereExists(
            DocumentSigner.query(db)
              .whereColumn('document_signers.document_id', 'documents.id')
              .where('document_signers.email', normalizeEmail(principal.email)),
          ),
      ),
  );
}

export function documentsOfPrincipal(db: Db, principal: Principal, options: { status?: Document['status']; limit: number }) {
  const query = visibleTo(db, principal).orderBy([
    { column: 'documents.created_at', order: 'desc' },
    { column: 'documents.id', order: 'desc' },
  ]);
  if (options.status) query.where('documents.status', options.status);
  return query.limit(options.limit);
}

/** One document the principal sees (sent it, or signs it); 404 otherwise, whatever exists. */
export async function documentOfPrincipal(db: Db, principal: Principal, id: string): Promise<Document> {
  const document = await visibleTo(db, principal).findById(id);
  if (!document) throw errors.notFound(t('errors.documents.no_such_document'));
  return document;
}

/** The sections of the app's documents inbox. */
export const INBOX_SECTIONS = ['waiting', 'sent', 'completed', 'closed', 'all'] as const;
export type InboxSection = (typeof INBOX_SECTIONS)[number];

/** Declined, expired and voided: documents that ended without every signature. */
const CLOSED_STATUSES = ['declined', 'expired', 'voided'];

/** My own signature is pending on a sent document: by its sign link, or by an L1 request still open. */
function whereWaitingFor(db: Db, principal: Principal) {
  return (where: QueryBuilder<Document>) =>
    where
      .where('documents.status', 'sent')
      .where((mine) =>
        mine
          .whereExists(
            DocumentSigner.query(db)
              .whereColumn('document_signers.document_id', 'documents.id')
              .where('document_signers.email', normalizeEmail(principal.email))
              .where('document_signers.status', 'pending'),
          )
          .orWhereExists(
            SignRequest.whereOpenAt(
              SignRequest.query(db)
                .whereColumn('sign_requests.document_id', 'documents.id')
                .where('sign_requests.principal_id', principal.id),
            ),
          ),
      );
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of the principal's inbox, newest first: a section (waiting for me, sent by me or my
 * agents and still in progress, completed, declined/expired/voided, or all), searched by the
 * document's name and its counterparties' names and e-mails.
 */
export async function inboxOf(
  db: Db,
  principal: Principal,
  options: { section: InboxSection; search?: string; limit: number; cursor?: string },
): Promise<{ items: Document[]; next_cursor: string | null }> {
  const query = visibleTo(db, principal);
  if (options.section === 'waiting') query.where(whereWaitingFor(db, principal));
  if (options.section === 'sent') query.where('documents.owner_principal_id', principal.id).whereIn('documents.status', ['draft', 'sent']);
  if (options.section === 'completed') query.where('documents.status', 'completed');
  if (options.section === 'closed') query.whereIn('documents.status', CLOSED_STATUSES);
  const search = options.search?.trim();
  if (search) {
    const pattern = likePattern(search);
    query.where((found) =>
      found.where('documents.name', 'ilike', pattern).orWhereExists(
        DocumentSigner.query(db)
          .whereColumn('document_signers.document_id', 'documents.id')
          .where((signer) => signer.where('document_signers.name', 'ilike', pattern).orWhere('document_signers.email', 'ilike', pattern)),
      ),
    );
  }
  return page(query, { limit: options.limit, cursor: options.cursor, table: 'documents' });
}

/** The documents waiting for the principal's own signature, newest first (the overview's short list). */
export function waitingForPrincipal(db: Db, principal: Principal, limit: number) {
  return visibleTo(db, principal)
    .where(whereWaitingFor(db, principal))
    .orderBy([
      { column: 'documents.created_at', order: 'desc' },
      { column: 'documents.id', order: 'desc' },
    ])
    .limit(limit);
}
