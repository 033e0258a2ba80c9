// `npm run record-histories [-- <words>] [-- --out <dir>]`: runs the stories of test/history-stories.ts
// against the real service (PostgreSQL, a Temporal dev server, SMTP and HTTPS listeners, the worker
// on the current workflow code) and writes the histories of the workflows they ran to
// test/histories/<workflow>/<scenario>.json, which workflows/replay.test.ts replays. Words narrow it
// to histories whose name contains one. Re-record after a workflow change guarded by patches, keeping
// the histories the old path must still replay (docs/workflows.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDevServer } from '../runtime/dev-server';
import { ensureTemporalCli } from '../runtime/temporal-cli';
import { bundleWorkflows } from '../worker/worker';
import { seedSamples } from './documents';
import { type Context, DURATIONS, RELAY, recordRelay, STORIES } from './history-stories';
import { freePort } from './ports';
import { mandatedAccount } from './principal';
import { type Receiver, selfSignedCertificate } from './receiver';
import { HISTORIES_DIR, historyToJson } from './replay';
import { startStack } from './stack';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function write(directory: string, name: string, json: string): string {
  const file = path.join(directory, `${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(JSON.parse(json), null, 2)}\n`);
  return file;
}

/** The name of every history the stories record. */
export const HISTORY_NAMES = [...STORIES.flatMap((story) => story.histories), RELAY].sort();

/**
 * Runs the stories that record a history `filters` name (all without filters) on the Temporal server
 * at TEMPORAL_ADDRESS, with the worker on SVC_WORKFLOW_BUNDLE (bundled per stack when unset), and
 * writes `<name>.json` under `directory`; answers the files written.
 */
export async function recordHistories(options: { directory: string; filters?: string[]; log?: (line: string) => void }): Promise<string[]> {
  const filters = options.filters ?? [];
  const wanted = (name: string) => filters.length === 0 || filters.some((filter) => name.includes(filter));
  const log = options.log ?? (() => undefined);
  const written: string[] = [];
  const receivers: Receiver[] = [];
  const tls = selfSignedCertificate();
  try {
    const stories = STORIES.filter((story) => story.histories.some(wanted));
    if (stories.length > 0) {
      const stack = await startStack({
        env: { ...DURATIONS, SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', SVC_WEBHOOK_CA_FILE: tls.caFile },
      });
      try {
        const { account: owner } = await mandatedAccount(stack, { level: 'L2', name: 'Olivia Owner' });
        const { nda } = await seedSamples(stack, owner);
        const context: Context = { stack, owner, nda, tls, receivers };
        for (const story of stories) {
          const started = Date.now();
          const recorded = await story.run(context);
          for (const [name, workflowId] of Object.entries(recorded)) {
            if (!wanted(name)) continue;
            const history = await stack.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
            written.push(write(options.directory, name, historyToJson(history)));
            log(`${name}: ${history.events?.length} events (${Date.now() - started} ms)`);
          }
        }
      } finally {
        await stack.close();
      }
    }
    if (wanted(RELAY)) {
      const started = Date.now();
      written.push(write(options.directory, RELAY, await recordRelay()));
      log(`${RELAY}: ${Date.now() - started} ms`);
    }
  } finally {
    for (const receiver of receivers) await receiver.stop();
  }
  if (written.length === 0) throw new Error(`no history matches ${filters.join(' ')}; the names: ${HISTORY_NAMES.join(', ')}`);
  return written;
}

/** The command: its own Temporal dev server (unless TEMPORAL_ADDRESS is set) and one bundle of the current workflow code. */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const directory = outIndex >= 0 ? path.resolve(args[outIndex + 1]) : HISTORIES_DIR;
  const filters = args.filter((_, i) => outIndex < 0 || (i !== outIndex && i !== outIndex + 1));
  process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.TEST_LOG_LEVEL ??= 'error';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-record-'));
  const devServer = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await startDevServer({
        binary: await ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI }),
        port: await freePort(),
        uiPort: 0,
        headless: true,
        logFile: path.join(scratch, 'temporal.log'),
      });
  if (devServer) process.env.TEMPORAL_ADDRESS = devServer.address;
  try {
    const bundlePath = path.join(scratch, 'workflows.js');
    fs.writeFileSync(bundlePath, (await bundleWorkflows()).code);
    process.env.SVC_WORKFLOW_BUNDLE = bundlePath;
    const written = await recordHistories({ directory, filters, log: (line) => process.stdout.write(`${line}\n`) });
    // Biome checks JSON too: the files are left in its layout.
    const biome = spawnSync(path.join(ROOT, 'node_modules/.bin/biome'), ['format', '--vcs-enabled=false', '--write', ...written], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (biome.status !== 0) throw new Error('biome format failed on the recorded histories');
    process.stdout.write(`wrote ${written.length} histories under ${path.relative(ROOT, directory) || '.'}\n`);
  } finally {
    await devServer?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  main().then(
    () => process.exit(0),
    (error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exit(1);
    },
  );
