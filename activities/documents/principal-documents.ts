import type { Db } from '../../db/connect';
import { Document, DocumentSigner, type Principal } from '../../db/models';
import { errors } from '../../lib/errors';
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
  if (!document) throw errors.notFound('No such document.');
  return document;
}
