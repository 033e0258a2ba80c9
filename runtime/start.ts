// `npm start`: the whole service in one process on embedded defaults: the API, the worker, and,
// when TEMPORAL_ADDRESS is unset, a Temporal dev server (with its Web UI) as a child process.
import fs from 'node:fs';
import path from 'node:path';
import { startHttpServer } from '../api/server';
import { pgliteDirectory } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { describeBlobLocation } from '../lib/config/blob-url';
import { type Config, loadConfig } from '../lib/config/config';
import { startMetricsListener } from '../lib/metrics-server';
import { startWorker } from '../worker/worker';
import { startAdminSocket } from './admin-socket';
import { livePid, lockDataDir } from './data-lock';
import { type DevServer, startDevServer } from './dev-server';
import { fail, onShutdown } from './lifecycle';
import { closeServices, startServices } from './services';
import { serviceSurfaces } from './surfaces';
import { ensureTemporalCli } from './temporal-cli';

const say = (line: string) => process.stdout.write(`${line}\n`);

/** A dev server left over by a start that was killed hard is stopped before a new one binds the ports. */
function stopLeftoverDevServer(pidFile: string): void {
  const pid = livePid(pidFile);
  if (!pid) return;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('start-dev')) process.kill(pid, 'SIGTERM');
  } catch {
    // not ours, or gone
  }
}

async function startTemporal(config: Config): Promise<DevServer | undefined> {
  if (config.temporal.address) return undefined;
  const binary = await ensureTemporalCli({ explicit: config.temporal.cliPath, log: say });
  const pidFile = path.join(config.dataDir, 'temporal.pid');
  stopLeftoverDevServer(pidFile);
  say(`starting the Temporal dev server on 127.0.0.1:${config.temporal.devPort} ...`);
  const server = await startDevServer({
    binary,
    port: config.temporal.devPort,
    uiPort: config.temporal.uiPort,
    dbFile: path.join(config.dataDir, 'temporal.sqlite'),
    logFile: path.join(config.dataDir, 'temporal.log'),
  });
  fs.writeFileSync(pidFile, String(server.pid));
  return {
    ...server,
    async stop() {
      await server.stop();
      fs.rmSync(pidFile, { force: true });
    },
  };
}

async function main() {
  const config = loadConfig();
  fs.mkdirSync(config.dataDir, { recursive: true });
  const lock = config.databaseUrl ? undefined : lockDataDir(config.dataDir);
  const cleanups: Array<() => Promise<void> | void> = [() => lock?.release()];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step();
  };
  try {
    const devServer = await startTemporal(config);
    if (devServer) cleanups.push(() => devServer.stop());
    const deps = await startServices(config, 'svc', { temporalAddress: devServer?.address });
    cleanups.push(() => closeServices(deps));
    const applied = await migrateLatest(deps.db);
    if (applied.length > 0) deps.log.info('migrations applied', { applied });
    const worker = await startWorker(deps);
    cleanups.push(() => worker.stop());
    const http = await startHttpServer(deps, { surfaces: serviceSurfaces() });
    cleanups.push(() => http.stop());
    // One process, one registry: the API's and the worker's metrics on one listener.
    const metrics = await startMetricsListener(config.metrics, config.metrics.port, deps.log);
    if (metrics) cleanups.push(() => metrics.stop());
    if (!config.databaseUrl) {
      const admin = await startAdminSocket(deps, config.dataDir);
      cleanups.push(() => admin.close());
    }
    worker.done.catch((error: Error) => {
      deps.log.error('worker stopped unexpectedly', { error });
      process.kill(process.pid, 'SIGTERM');
    });

    const temporalUi = devServer?.uiUrl ?? config.temporal.uiUrl ?? '(set TEMPORAL_UI_URL to show it here)';
    say('');
    say('Service is running');
    say(
      `  API          ${config.publicUrl}/v1   (listening on ${http.url}; health ${config.publicUrl}/v1/health, OpenAPI ${config.publicUrl}/v1/openapi.json)`,
    );
    say(`  App          ${config.appUrl}`);
    say(`  Temporal UI  ${temporalUi}   (namespace ${deps.temporal.namespace}, task queue ${deps.temporal.taskQueue})`);
    say(`  Database     ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${pgliteDirectory(config.dataDir)}`}`);
    say(`  Data         ${config.dataDir}`);
    say(`  Blobs        ${describeBlobLocation(config.blobs)}`);
    say('Create an account: npm run -s admin -- create-principal --email you@example.com --name "You"');
    say('Press Ctrl-C to stop.');
  } catch (error) {
    await cleanup().catch(() => undefined);
    throw error;
  }
  onShutdown(async () => {
    await cleanup();
    say('stopped');
  });
}

main().catch(fail);
