import type { Logger } from './log';
import type { Tracing, TracingSettings } from './tracing-types';

export type { Tracing, TracingSettings } from './tracing-types';

let running: { tracing: Promise<Tracing>; users: number } | undefined;

/**
 * This process's tracing, or undefined when it is off. Off, nothing is loaded (the SDK and the
 * exporter are imported only here), no provider is registered and no interceptor is added. One
 * provider per process: an API and a worker in one process (npm start, the test stacks) share it,
 * and it shuts down with the last of them.
 */
export async function startTracing(settings: TracingSettings, serviceName: string, log: Logger): Promise<Tracing | undefined> {
  if (!settings.enabled) return undefined;
  if (!running) {
    const current = {
      users: 0,
      tracing: import('./tracing-sdk').then(({ startOtlpTracing }) => startOtlpTracing(settings, settings.serviceName ?? serviceName, log)),
    };
    running = current;
    current.tracing.catch(() => {
      if (running === current) running = undefined;
    });
  }
  const shared = running;
  shared.users += 1;
  const tracing = await shared.tracing;
  let closed = false;
  return {
    ...tracing,
    async shutdown() {
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      if (running === shared) running = undefined;
      await tracing.shutdown();
    },
  };
}
