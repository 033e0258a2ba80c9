// `npm run -s admin -- <command>`: operators create principals and keys and set plans (see USAGE).

import path from 'node:path';
import { absoluteArgv, errorJson, parseCommand, runCommand, USAGE, UsageError } from '../api/admin/commands';
import { connectDb } from '../db/connect';
import { migrateLatest, migrationStatus } from '../db/migrate';
import { loadConfig } from '../lib/config/config';
import { createPdfThreads } from '../lib/pdf/intake';
import { createReceiptIssuer } from '../lib/receipts';
import { loadSecretKey } from '../lib/secrets/secret-key';
import { sendAdminCommand } from './admin-socket';
import { createBlobStore } from './blob-store';
import { livePid } from './data-lock';

function print(stream: NodeJS.WriteStream, value: unknown) {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Without -s, npm has printed its `> admin` banner on stdout above the JSON: tell a pipe's user why it does not parse. */
function noteNpmBanner() {
  if (process.env.npm_lifecycle_event !== 'admin' || process.env.npm_config_loglevel === 'silent' || process.stdout.isTTY) return;
  process.stderr.write('note: npm printed its banner on stdout before the JSON; npm run -s admin -- … prints the JSON alone\n');
}

async function main(argv: string[]): Promise<number> {
  noteNpmBanner();
  let command: ReturnType<typeof parseCommand>;
  try {
    command = parseCommand(argv);
  } catch (error) {
    print(process.stderr, errorJson(error));
    process.stderr.write(`\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  if (!config.databaseUrl) {
    // Embedded PGlite: a running `npm start` owns the files, so the command goes to it.
    const reply = await sendAdminCommand(config.dataDir, absoluteArgv(argv));
    if (reply) {
      print(reply.ok ? process.stdout : process.stderr, reply.ok ? reply.result : { error: reply.error });
      return reply.ok ? 0 : reply.error?.code === 'usage' ? 2 : 1;
    }
    const holder = livePid(path.join(config.dataDir, 'svc.pid'));
    if (holder) throw new Error(`the service (pid ${holder}) holds ${config.dataDir} but its admin socket does not answer`);
  }
  const db = connectDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    if (config.databaseUrl) {
      const { pending } = await migrationStatus(db);
      if (pending.length > 0) throw new Error(`the database has pending migrations; run: npm run migrate`);
    } else {
      await migrateLatest(db);
    }
    const secret = loadSecretKey({ secretKey: config.secretKey, previous: config.secretKeyPrevious, dataDir: config.dataDir });
    const pdf = createPdfThreads({
      size: 1,
      limits: { timeMs: config.pdf.timeMs, memoryMb: config.pdf.memoryMb, maxPages: config.pdf.maxPages },
    });
    const context = {
      db,
      secret,
      blobs: createBlobStore(config),
      receipts: createReceiptIssuer({ db, secret, issuer: config.publicUrl }),
      pdf,
    };
    try {
      print(process.stdout, await runCommand(context, command));
    } finally {
      await pdf.close();
    }
    return 0;
  } catch (error) {
    print(process.stderr, errorJson(error));
    if (!(error instanceof UsageError)) return 1;
    process.stderr.write(`\n${USAGE}\n`);
    return 2;
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    print(process.stderr, { error: { code: 'admin_failed', message: error.message } });
    process.exit(1);
  },
);
