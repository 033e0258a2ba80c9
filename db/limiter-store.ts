import type { Knex } from 'knex';

/** What RateLimiterPostgres calls on a storeClient of storeType 'client' (a node-postgres Client's shape). */
export interface LimiterStoreClient {
  query(statement: { text: string; values?: unknown[] }): Promise<{ rows: Record<string, unknown>[]; rowCount: number }>;
}

/**
 * The project's knex instance as a RateLimiterPostgres store, so the limiter runs on PostgreSQL and
 * on embedded PGlite alike: `$n` placeholders become knex `?` bindings in order of appearance.
 */
export function knexLimiterStore(db: Knex): LimiterStoreClient {
  return {
    async query({ text, values = [] }) {
      const bindings: unknown[] = [];
      const sql = text.replace(/\$(\d+)/g, (_, index: string) => {
        bindings.push(values[Number(index) - 1]);
        return '?';
      });
      const result = await db.raw(sql, bindings as Knex.RawBinding[]);
      // PGlite answers int8 as bigint, and counts only changed rows in rowCount (0 for a SELECT).
      const rows = (result.rows as Record<string, unknown>[]).map((row) =>
        Object.fromEntries(Object.entries(row).map(([name, value]) => [name, typeof value === 'bigint' ? Number(value) : value])),
      );
      return { rows, rowCount: Math.max(rows.length, Number(result.rowCount ?? 0)) };
    },
  };
}
