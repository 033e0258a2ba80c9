// `npm run api`: the HTTP API alone, for production; configured only by environment variables.
import { loadConfig } from '../activities/config/config';
import { closeDeps, createDeps } from '../worker/deps';
import { fail, onShutdown, requireMigrated, requireProductionSettings } from '../worker/lifecycle';
import { startHttpServer } from './server';

async function main() {
  const config = loadConfig();
  requireProductionSettings(config, 'api');
  const deps = createDeps(config);
  await requireMigrated(deps);
  const http = await startHttpServer(deps);
  deps.log.info('api listening', { url: http.url, public_url: config.publicUrl });
  onShutdown(async () => {
    await http.stop();
    await closeDeps(deps);
    deps.log.info('stopped');
  });
}

main().catch(fail);
