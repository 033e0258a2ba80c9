// `npm run worker`: the Temporal worker alone, for production; configured only by environment variables.
import { loadConfig } from '../activities/config/config';
import { closeDeps, createDeps } from './deps';
import { fail, onShutdown, requireMigrated, requireProductionSettings } from './lifecycle';
import { startWorker } from './worker';

async function main() {
  const config = loadConfig();
  requireProductionSettings(config, 'worker');
  const deps = createDeps(config);
  await requireMigrated(deps);
  const worker = await startWorker(deps);
  deps.log.info('worker polling', {
    address: deps.temporal.address,
    namespace: deps.temporal.namespace,
    task_queue: deps.temporal.taskQueue,
  });
  onShutdown(async () => {
    await worker.stop();
    await closeDeps(deps);
    deps.log.info('stopped');
  });
  await worker.done;
}

main().catch(fail);
