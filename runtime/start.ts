// `npm start`: the whole service in one process on embedded defaults: the API, the worker, and,
// when TEMPORAL_ADDRESS is unset, a Temporal dev server (with its Web UI) as a child process.
import fs from 'node:fs';
import path from 'node:path';
import { devMailUrl, servesDevMail } from '../api/app/dev-mail';
import { startHttpServer } from '../api/server';
import { pgliteDirectory } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { describeBlobLocation } from '../lib/config/blob-url';
import { type Config, loadConfig } from '../lib/config/config';
import { startMetricsListener } from '../lib/metrics-server';
import { startWorker } from '../worker/worker';
import { bulkTaskQueue } from '../workflows/bulk/shared';
import { startAdminSocket } from './admin-socket';
import { livePid, lockDataDir } from './data-lock';
import { type DevServer, DevServerError, startDevServer } from './dev-server';
import { fail, onShutdown } from './lifecycle';
import { explainListenError, freeLoopbackPorts, type PortSetting, portTaken, requireFreePorts } from './ports';
import { closeServices, startServices } from './services';
import { Started } from './started';
import { serviceSurfaces } from './surfaces';
import { ensureTemporalCli } from './temporal-cli';

const say = (line: string) => process.stdout.write(`${line}\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A dev server left over by a start that was killed hard is stopped, and waited for, before its ports are checked. */
async function stopLeftoverDevServer(pidFile: string): Promise<void> {
  const pid = livePid(pidFile);
  if (!pid) return;
  try {
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev')) return;
    say(`stopping the Temporal dev server (pid ${pid}) left by an earlier start ...`);
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // not ours, or gone
  }
  for (let waited = 0; livePid(pidFile) && waited < 10_000; waited += 100) await sleep(100);
  if (livePid(pidFile)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  for (let waited = 0; livePid(pidFile) && waited < 5_000; waited += 100) await sleep(100);
  fs.rmSync(pidFile, { force: true });
}

interface TemporalPorts {
  grpc: PortSetting;
  ui: PortSetting;
}

/** The dev server's ports; 0 picks free ones here, since the server must be told a number. */
async function devServerPorts(config: Config): Promise<TemporalPorts> {
  const [free, freeUi] = await freeLoopbackPorts(2);
  return {
    grpc: { variable: 'TEMPORAL_DEV_PORT', port: config.temporal.devPort || free, host: '127.0.0.1' },
    ui: { variable: 'TEMPORAL_UI_PORT', port: config.temporal.uiPort || freeUi, host: '127.0.0.1' },
  };
}

async function startTemporal(config: Config, ports: TemporalPorts, binary: string): Promise<DevServer> {
  const pidFile = path.join(config.dataDir, 'temporal.pid');
  say(`starting the Temporal dev server on 127.0.0.1:${ports.grpc.port} ...`);
  let server: DevServer;
  try {
    server = await startDevServer({
      binary,
      port: ports.grpc.port,
      uiPort: ports.ui.port,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      logFile: path.join(config.dataDir, 'temporal.log'),
    });
  } catch (error) {
    if (error instanceof DevServerError && error.port !== undefined) {
      throw portTaken(error.port === ports.ui.port ? ports.ui : ports.grpc);
    }
    // A port taken between the check and the server's bind: say which, rather than the server's words.
    await requireFreePorts([ports.grpc, ports.ui]);
    throw error;
  }
  fs.writeFileSync(pidFile, String(server.pid));
  return {
    ...server,
    async stop() {
      await server.stop();
      fs.rmSync(pidFile, { force: true });
    },
  };
}

async function run(config: Config, started: Started, stopFor: (reason: string) => void): Promise<void> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (!config.databaseUrl) {
    const lock = lockDataDir(config.dataDir);
    started.add(() => lock.release());
    process.once('exit', () => lock.release());
  }
  const api: PortSetting = { variable: 'PORT', port: config.port, host: config.host };
  const metrics: PortSetting | undefined =
    config.metrics.port === undefined ? undefined : { variable: 'SVC_METRICS_PORT', port: config.metrics.port, host: config.metrics.host };
  const temporalPorts = config.temporal.address ? undefined : await devServerPorts(config);
  // Ours to stop before its ports are checked: a dev server left by a start that was killed hard.
  if (temporalPorts) await stopLeftoverDevServer(path.join(config.dataDir, 'temporal.pid'));
  // Every port is checked before anything binds, so a taken one leaves nothing behind.
  await requireFreePorts([api, ...(metrics ? [metrics] : []), ...(temporalPorts ? [temporalPorts.grpc, temporalPorts.ui] : [])]);

  let devServer: DevServer | undefined;
  if (temporalPorts) {
    const binary = await ensureTemporalCli({ explicit: config.temporal.cliPath, log: say });
    started.check();
    devServer = await startTemporal(config, temporalPorts, binary);
    started.add(() => devServer!.stop());
    // A dev server that dies takes the workflows with it: the service stops rather than run without.
    void devServer.exited.then((line) => {
      if (!started.stopping) stopFor(line);
    });
    started.check();
  }
  const deps = await startServices(config, 'svc', { temporalAddress: devServer?.address });
  started.add(() => closeServices(deps));
  const applied = await migrateLatest(deps.db);
  if (applied.length > 0) deps.log.info('migrations applied', { applied });
  started.check();
  const worker = await startWorker(deps);
  started.add(() => worker.stop());
  started.check();
  const http = await startHttpServer(deps, { surfaces: serviceSurfaces(config) }).catch((error: unknown) => {
    throw explainListenError(error, api);
  });
  started.add(() => http.stop());
  // One process, one registry: the API's and the worker's metrics on one listener.
  const metricsServer = await startMetricsListener(config.metrics, config.metrics.port, deps.log).catch((error: unknown) => {
    throw metrics ? explainListenError(error, metrics) : error;
  });
  if (metricsServer) started.add(() => metricsServer.stop());
  if (!config.databaseUrl) {
    const admin = await startAdminSocket(deps, config.dataDir);
    started.add(() => admin.close());
  }
  started.check();
  worker.done.catch((error: Error) => {
    deps.log.error('worker stopped unexpectedly', { error });
    stopFor('the worker stopped unexpectedly');
  });

  const temporalUi = devServer?.uiUrl ?? config.temporal.uiUrl ?? '(set TEMPORAL_UI_URL to show it here)';
  say('');
  say('Service is running');
  say(
    `  API          ${config.publicUrl}/v1   (listening on ${http.url}; health ${config.publicUrl}/v1/health, OpenAPI ${config.publicUrl}/v1/openapi.json)`,
  );
  say(`  App          ${config.appUrl}`);
  say(
    `  Temporal UI  ${temporalUi}   (namespace ${deps.temporal.namespace}, task queues ${deps.temporal.taskQueue} and ${bulkTaskQueue(deps.temporal.taskQueue)})`,
  );
  say(`  Database     ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${pgliteDirectory(config.dataDir)}`}`);
  say(`  Data         ${config.dataDir}`);
  say(`  Blobs        ${describeBlobLocation(config.blobs)}`);
  if (servesDevMail(config))
    say(`  Outbox       ${devMailUrl(config.publicUrl, deps.secret)}   (mail as stored; keep this link to yourself)`);
  say('Create an account: npm run -s admin -- create-principal --email you@example.com --name "You"');
  say('Press Ctrl-C to stop.');
}

async function main() {
  const config = loadConfig();
  const started = new Started();
  // Handled from the first step: a signal during start-up stops what has started so far.
  const stopFor = onShutdown(async () => {
    await started.stop();
    say('stopped');
  });
  try {
    await run(config, started, stopFor);
  } catch (error) {
    // A stop that began during start-up finishes (and exits) on its own.
    if (started.stopping) return;
    await started.stop().catch(() => undefined);
    throw error;
  }
}

main().catch(fail);
