// `npm run worker`: the Temporal worker alone, for production; configured only by environment variables.
import { loadConfig } from '../lib/config/config';
import { startMetricsListener } from '../lib/metrics-server';
import { startWorker } from '../worker/worker';
import { bulkTaskQueue } from '../workflows/bulk/shared';
import { fail, onShutdown, requireMigrated, requireProductionSettings } from './lifecycle';
import { requireFreePorts } from './ports';
import { closeServices, startServices } from './services';

async function main() {
  const config = loadConfig();
  requireProductionSettings(config, 'worker');
  const metricsPort = config.metrics.workerPort;
  await requireFreePorts(
    metricsPort === undefined ? [] : [{ variable: 'SVC_WORKER_METRICS_PORT', port: metricsPort, host: config.metrics.host }],
  );
  const deps = await startServices(config, 'svc-worker');
  await requireMigrated(deps);
  const worker = await startWorker(deps);
  deps.log.info('worker polling', {
    address: deps.temporal.address,
    namespace: deps.temporal.namespace,
    task_queue: deps.temporal.taskQueue,
    bulk_task_queue: bulkTaskQueue(deps.temporal.taskQueue),
  });
  const metrics = await startMetricsListener(config.metrics, metricsPort, deps.log);
  onShutdown(async () => {
    await metrics?.stop();
    await worker.stop();
    await closeServices(deps);
    deps.log.info('stopped');
  });
  await worker.done;
}

main().catch(fail);
