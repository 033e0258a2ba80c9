// `npm run migrate [-- latest|rollback|status]` against DATABASE_URL (or the embedded PGlite).

import { connectDb } from '../db/connect';
import { migrateLatest, migrateRollbackAll, migrationStatus } from '../db/migrate';
import { loadConfig } from '../lib/config/config';
import { fail } from './lifecycle';

async function main() {
  const command = process.argv[2] ?? 'latest';
  const config = loadConfig();
  const db = connectDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    if (command === 'latest') process.stdout.write(`${JSON.stringify({ applied: await migrateLatest(db) })}\n`);
    else if (command === 'rollback') process.stdout.write(`${JSON.stringify({ rolled_back: await migrateRollbackAll(db) })}\n`);
    else if (command === 'status') process.stdout.write(`${JSON.stringify(await migrationStatus(db))}\n`);
    else throw new Error(`unknown migrate command ${command}; use latest, rollback or status`);
  } finally {
    await db.destroy();
  }
}

main().catch(fail);
