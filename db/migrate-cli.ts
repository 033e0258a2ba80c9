// `npm run migrate [-- latest|rollback|status]` against DATABASE_URL (or the embedded PGlite).
import { loadConfig } from '../activities/config/config';
import { fail } from '../worker/lifecycle';
import { connectDb } from './connect';
import { migrateLatest, migrateRollbackAll, migrationStatus } from './migrate';

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
