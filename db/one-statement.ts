import type { Knex } from 'knex';

/** A statement built with knex's builder (or knex.raw), not yet run. */
export type Write = Knex.QueryBuilder | Knex.Raw;

/**
 * Several writes as one statement: each a data-modifying WITH query of the last, which PostgreSQL
 * (and PGlite) runs once and to completion whether or not the last reads it. One round trip instead
 * of one per write, all or nothing like any statement. The writes see the same snapshot, so none may
 * read what another writes (none here does: each names its rows by key). `last` is the statement
 * whose rows come back (default: none).
 */
export async function writeAsOne(trx: Knex | Knex.Transaction, writes: Write[], last?: Write): Promise<Array<Record<string, unknown>>> {
  const parts = writes.map((write) => write.toSQL());
  const end = last?.toSQL() ?? { sql: 'select 1 where false', bindings: [] };
  const sql = `with ${parts.map((part, i) => `w${i} as (${part.sql})`).join(', ')} ${end.sql}`;
  const bindings = [...parts.flatMap((part) => part.bindings), ...end.bindings];
  const result = (await trx.raw(sql, bindings as Knex.RawBinding[])) as { rows: Array<Record<string, unknown>> };
  return result.rows;
}
