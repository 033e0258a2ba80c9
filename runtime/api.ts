// `npm run api`: the HTTP API alone, for production; configured only by environment variables.

import { startHttpServer } from '../api/server';
import { loadConfig } from '../lib/config/config';
import { startMetricsListener } from '../lib/metrics-server';
import { fail, onShutdown, requireMigrated, requireProductionSettings } from './lifecycle';
import { closeServices, startServices } from './services';
import { serviceSurfaces } from './surfaces';

async function main() {
  const config = loadConfig();
  requireProductionSettings(config, 'api');
  const deps = await startServices(config, 'svc-api');
  await requireMigrated(deps);
  const http = await startHttpServer(deps, { surfaces: serviceSurfaces() });
  deps.log.info('api listening', { url: http.url, public_url: config.publicUrl });
  const metrics = await startMetricsListener(config.metrics, config.metrics.port, deps.log);
  onShutdown(async () => {
    await metrics?.stop();
    await http.stop();
    await closeServices(deps);
    deps.log.info('stopped');
  });
}

main().catch(fail);
