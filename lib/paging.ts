import type { Model, QueryBuilder } from 'objection';
import { errors } from './errors';
import { t } from './i18n';

interface Cursor {
  t: string;
  id: string;
}

/** Opaque cursor of a newest-first list: the creation time and id of the last item seen. */
export function encodeCursor(item: { created_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ t: item.created_at.toISOString(), id: item.id } satisfies Cursor)).toString('base64url');
}

const ID = /^[a-z]+_[0-9A-Za-z]{1,64}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function decodeCursor(cursor: string): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Cursor;
    // Only what encodeCursor writes: anything else (a NUL in the id, a year PostgreSQL has not) would reach the query.
    if (
      typeof parsed.t === 'string' &&
      typeof parsed.id === 'string' &&
      ID.test(parsed.id) &&
      ISO_TIME.test(parsed.t) &&
      new Date(parsed.t).toISOString() === parsed.t
    )
      return parsed;
  } catch {
    // fall through
  }
  throw errors.invalidRequest(t('errors.paging.unknown_cursor'), [{ path: 'query.cursor', message: 'invalid cursor' }]);
}

/**
 * One page of a newest-first list; `next_cursor` is null on the last page. Rows are ordered and
 * compared by (created_at, id). Paged tables keep created_at at millisecond precision
 * (timestamptz(3), migration 20261127000012_paging), the precision a Date and so the cursor have,
 * so no row made within the cursor's millisecond is skipped, and the order is the one of the list's
 * index (filter, created_at desc, id desc): a first page reads 21 rows whatever the list's length.
 */
export async function page<M extends Model & { created_at: Date; id: string }>(
  query: QueryBuilder<M>,
  options: { limit: number; cursor?: string; table: string },
): Promise<{ items: M[]; next_cursor: string | null }> {
  const created = `${options.table}.created_at`;
  const id = `${options.table}.id`;
  if (options.cursor) {
    const cursor = decodeCursor(options.cursor);
    const at = new Date(cursor.t);
    query.where((q) => q.where(created, '<', at).orWhere((same) => same.where(created, '=', at).where(id, '<', cursor.id)));
  }
  const rows = (await query
    .orderBy(created, 'desc')
    .orderBy(id, 'desc')
    .limit(options.limit + 1)) as M[];
  const items = rows.slice(0, options.limit);
  return { items, next_cursor: rows.length > options.limit ? encodeCursor(items[items.length - 1]) : null };
}
