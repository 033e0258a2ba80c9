// `npm run api`: the HTTP API alone, for production; configured only by environment variables.

import { startHttpServer } from '../api/server';
import { loadConfig } from '../lib/config/config';
import { startMetricsListener } from '../lib/metrics-server';
import { fail, onShutdown, requireMigrated, requireProductionSettings } from './lifecycle';
import { explainListenError, type PortSetting, requireFreePorts } from './ports';
import { closeServices, startServices } from './services';
import { serviceSurfaces } from './surfaces';

async function main() {
  const config = loadConfig();
  requireProductionSettings(config, 'api');
  const api: PortSetting = { variable: 'PORT', port: config.port, host: config.host };
  const metricsPort = config.metrics.port;
  const metrics = metricsPort === undefined ? [] : [{ variable: 'SVC_METRICS_PORT', port: metricsPort, host: config.metrics.host }];
  await requireFreePorts([api, ...metrics]);
  const deps = await startServices(config, 'svc-api');
  await requireMigrated(deps);
  const http = await startHttpServer(deps, { surfaces: serviceSurfaces(config) }).catch((error: unknown) => {
    throw explainListenError(error, api);
  });
  deps.log.info('api listening', { url: http.url, public_url: config.publicUrl });
  const metricsServer = await startMetricsListener(config.metrics, metricsPort, deps.log);
  onShutdown(async () => {
    await metricsServer?.stop();
    await http.stop();
    await closeServices(deps);
    deps.log.info('stopped');
  });
}

main().catch(fail);
