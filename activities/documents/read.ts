import type { Db } from '../../db/connect';
import { Apply, Document, DocumentSigner } from '../../db/models';
import type { Caller } from '../accounts/accounts';
import { type DocumentWithSigners, SHOWN_DOCUMENT_COLUMNS, type ShownDocument, visibleTo } from './documents';
import type { Invitation } from './invitations';

type Json = Record<string, unknown>;

const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);

/**
 * GET /documents/:id in one statement: the document's row, and as one JSON array its signers in
 * signing order, each with the state of its latest apply and of its sign-link e-mail (whose dedupe
 * key is `sign-invite:<signer id>`, activities/documents/invitations.ts). The same view as
 * findVisibleDocument with invitationsOf, for a third of the round trips.
 *
 * A named (prepared) statement: PostgreSQL parses and plans it once per connection, not on every read
 * (planning this statement cost PostgreSQL twice what running it does: 270 µs against 90 µs prepared,
 * pgbench, and the server shares the API's cores). The document's columns are named, not `d.*`, so a
 * migration adding a column while the API runs does not change the prepared result's type (which
 * PostgreSQL refuses with "cached plan must not change result type"); `to_jsonb(s)` is one jsonb
 * whatever the signers' columns. The widgets are not read: no answer shows them, and parsing them (10 KB
 * of JSON for the sample NDA) was a tenth of the read's CPU.
 */
// Named anew when the columns change: a connection that prepared the old text keeps it under the old name.
const READ_NAME = 'read-visible-document-no-widgets';
const READ = `
  select ${SHOWN_DOCUMENT_COLUMNS.map((column) => `d.${column}`).join(', ')}, coalesce((
    select json_agg(json_build_object(
      'signer', to_jsonb(s),
      'apply', case when a.id is null then null else json_build_object(
        'id', a.id, 'status', a.status, 'error_code', a.error_code, 'error_message', a.error_message,
        'created_at', a.created_at, 'applied_at', a.applied_at, 'rejected_at', a.rejected_at) end,
      'mail', case when m.id is null then null else json_build_object('status', m.status, 'error', m.error) end
    ) order by s.position)
    from document_signers s
    left join applies a on a.id = s.last_apply_id
    left join mail_outbox m on m.dedupe_key = 'sign-invite:' || s.id
    where s.document_id = d.id
  ), '[]'::json) as signers_json
  from documents d where d.id = ?`;

export async function readVisibleDocument(
  db: Db,
  caller: Caller,
  id: string,
): Promise<DocumentWithSigners<ShownDocument> & { inbound: boolean; invitations: Map<string, Invitation> }> {
  const { rows } = await db.raw(READ, [id]).options({ name: READ_NAME });
  const row = rows[0] as (Json & { signers_json: Json[] | string }) | undefined;
  const invitations = new Map<string, Invitation>();
  let document: ShownDocument | undefined;
  const signers: DocumentSigner[] = [];
  if (row) {
    const { signers_json, ...columns } = row;
    document = Document.fromDatabaseJson(columns);
    // node-postgres parses json; PGlite too, but a driver answering text is read the same way.
    const listed = typeof signers_json === 'string' ? (JSON.parse(signers_json) as Json[]) : signers_json;
    for (const { signer, apply, mail } of listed as Array<{ signer: Json; apply: Json | null; mail: Invitation | null }>) {
      const read = DocumentSigner.fromDatabaseJson({
        ...signer,
        signed_at: date(signer.signed_at),
        declined_at: date(signer.declined_at),
        created_at: date(signer.created_at),
      });
      read.lastApply = apply
        ? Apply.fromDatabaseJson({
            ...apply,
            created_at: date(apply.created_at),
            applied_at: date(apply.applied_at),
            rejected_at: date(apply.rejected_at),
          })
        : null;
      if (mail) invitations.set(read.id, { status: mail.status, error: mail.status === 'failed' ? mail.error : null });
      signers.push(read);
    }
  }
  return { ...visibleTo(caller, document, signers), invitations };
}
