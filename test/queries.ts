import type { Db } from '../db/connect';

/** The SQL `db` ran while `run` ran (this process's statements; another process's are not seen). */
export async function queriesDuring(db: Db, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql);
  db.on('query', listener);
  try {
    await run();
  } finally {
    db.off('query', listener);
  }
  return seen;
}
