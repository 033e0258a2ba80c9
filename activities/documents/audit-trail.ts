import type { Db } from '../../db/connect';
import { type ActorType, ApiKey, AuditEvent, DocumentSigner, Principal } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';

/** One line of a document's audit trail as people and the API read it: who (by kind and name), what, when, from where. */
export interface AuditTrailLine {
  id: string;
  action: string;
  at: Date;
  actor: { kind: ActorType; id: string | null; name: string | null };
  /** The principal who acted, or for whom an agent acted. */
  principal_id: string | null;
  /** The mandate an agent acted under, where one did. */
  mandate_id: string | null;
  ip: string | null;
  user_agent: string | null;
  data: Record<string, unknown>;
}

interface Cursor {
  /** The line's time to the microsecond (audit_events.created_at is clock_timestamp(), finer than a Date). */
  t: string;
  id: string;
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[a-z]+_[0-9A-Za-z]{1,64}$/;
const AT_MICROS = `to_char(audit_events.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function decodeCursor(cursor: string): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Cursor;
    if (typeof parsed.t === 'string' && typeof parsed.id === 'string' && MICRO_TIME.test(parsed.t) && ID.test(parsed.id))
      return { t: parsed.t, id: parsed.id };
  } catch {
    // fall through
  }
  throw errors.invalidRequest(t('errors.paging.unknown_cursor'), [{ path: 'query.cursor', message: 'invalid cursor' }]);
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

/**
 * A document's audit trail, oldest first, one page at a time. Ordered by (created_at, id) as the
 * completion's attached trail is; the cursor keeps the time to the microsecond, so lines written in
 * one millisecond (a document created and sent at once) are neither skipped nor repeated.
 */
export async function auditTrailOf(
  db: Db,
  documentId: string,
  options: { limit: number; cursor?: string },
): Promise<{ items: AuditTrailLine[]; next_cursor: string | null }> {
  const query = AuditEvent.query(db)
    .select('audit_events.*', db.raw(`${AT_MICROS} as at_micros`))
    .where('audit_events.document_id', documentId);
  if (options.cursor) {
    const cursor = decodeCursor(options.cursor);
    query.whereRaw('(audit_events.created_at, audit_events.id) > (?::timestamptz, ?)', [cursor.t, cursor.id]);
  }
  const rows = (await query
    .orderBy('audit_events.created_at')
    .orderBy('audit_events.id')
    .limit(options.limit + 1)) as Array<AuditEvent & { at_micros: string }>;
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    items: await describeLines(db, page),
    next_cursor: rows.length > options.limit ? encodeCursor({ t: last.at_micros, id: last.id }) : null,
  };
}

/** Each line with its actor's name (a signer's, a principal's, an API key's label) and the principal and mandate behind it. */
async function describeLines(db: Db, lines: AuditEvent[]): Promise<AuditTrailLine[]> {
  const idsOf = (type: ActorType) => [
    ...new Set(lines.filter((line) => line.actor_type === type && line.actor_id).map((line) => line.actor_id!)),
  ];
  const [signers, principals, keys] = await Promise.all([
    DocumentSigner.query(db).findByIds(idsOf('signer')),
    Principal.query(db).findByIds(idsOf('principal')),
    ApiKey.query(db).findByIds(idsOf('agent')),
  ]);
  const signerOf = new Map(signers.map((signer) => [signer.id, signer]));
  const principalOf = new Map(principals.map((principal) => [principal.id, principal]));
  const keyOf = new Map(keys.map((key) => [key.id, key]));
  return lines.map((line) => {
    const id = line.actor_id;
    let name: string | null = null;
    let principalId: string | null = null;
    if (line.actor_type === 'signer' && id) name = signerOf.get(id)?.signed_name ?? signerOf.get(id)?.name ?? null;
    if (line.actor_type === 'principal' && id) {
      name = principalOf.get(id)?.name ?? null;
      principalId = id;
    }
    if (line.actor_type === 'agent' && id) {
      name = keyOf.get(id)?.label ?? null;
      principalId = keyOf.get(id)?.principal_id ?? null;
    }
    if (line.actor_type === 'system') name = 'the service';
    if (line.actor_type === 'operator') name = 'an operator';
    const mandate = line.data?.mandate_id;
    return {
      id: line.id,
      action: line.action,
      at: line.created_at,
      actor: { kind: line.actor_type, id, name },
      principal_id: principalId,
      mandate_id: typeof mandate === 'string' ? mandate : null,
      ip: line.ip,
      user_agent: line.user_agent,
      data: line.data ?? {},
    };
  });
}
