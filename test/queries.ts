import type { Db } from '../db/connect';

/** One statement `db` sent: its SQL and bindings, its transaction (knex's id), when it was sent and how long its answer took (ms). */
export interface Statement {
  sql: string;
  bindings: readonly unknown[];
  /** knex's transaction id; undefined outside a transaction. */
  tx?: string;
  /** ms from `from` (recordStatements) when it was sent. */
  at: number;
  /** ms until its answer (or its error); undefined while none came. */
  took?: number;
}

interface KnexQuery {
  __knexQueryUid: string;
  __knexTxId?: string;
  sql: string;
  bindings?: readonly unknown[];
}

/**
 * The statements `db` sends from now until `stop()`, in the order they were sent (this process's: another
 * process's are not seen), with their timings counted from `from` (a `performance.now()`, now by default).
 */
export function recordStatements(db: Db, from = performance.now()): { statements: Statement[]; stop(): void } {
  const statements: Statement[] = [];
  const open = new Map<string, Statement>();
  const sent = (query: KnexQuery) => {
    const statement = { sql: query.sql, bindings: query.bindings ?? [], tx: query.__knexTxId, at: performance.now() - from };
    statements.push(statement);
    open.set(query.__knexQueryUid, statement);
  };
  const answered = (_response: unknown, query: KnexQuery) => {
    const statement = open.get(query.__knexQueryUid);
    if (!statement) return;
    open.delete(query.__knexQueryUid);
    statement.took = performance.now() - from - statement.at;
  };
  db.on('query', sent).on('query-response', answered).on('query-error', answered);
  return {
    statements,
    stop() {
      db.off('query', sent).off('query-response', answered).off('query-error', answered);
    },
  };
}

/** The SQL `db` ran while `run` ran (this process's statements; another process's are not seen). */
export async function queriesDuring(db: Db, run: () => Promise<unknown>): Promise<string[]> {
  const recording = recordStatements(db);
  try {
    await run();
  } finally {
    recording.stop();
  }
  return recording.statements.map((statement) => statement.sql);
}
