import type { Db } from './connect';
import { migrationSource } from './migrations';

const config = { migrationSource, tableName: 'knex_migrations' };

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = await db.migrate.latest(config);
  return applied as string[];
}

/** Rolls every migration back, newest first. */
export async function migrateRollbackAll(db: Db): Promise<string[]> {
  const [, rolledBack] = await db.migrate.rollback(config, true);
  return rolledBack as string[];
}

export async function migrationStatus(db: Db): Promise<{ applied: string[]; pending: string[] }> {
  const [applied, pending] = (await db.migrate.list(config)) as [Array<{ name: string }>, Array<[string, unknown]>];
  return { applied: applied.map((m) => m.name), pending: pending.map(([name]) => name) };
}
