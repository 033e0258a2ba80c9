import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Services } from '../activities/services';
import { createApp, type MountedSurface } from './koa-app';

export interface RunningServer {
  server: http.Server;
  /** Base address actually bound, e.g. http://127.0.0.1:3000 (port 0 resolves to the real port). */
  url: string;
  stop(): Promise<void>;
}

export async function startHttpServer(
  deps: Services,
  options: { port?: number; host?: string; surfaces?: MountedSurface[] } = {},
): Promise<RunningServer> {
  // The verifier's trust anchors: an unreadable SVC_VERIFY_TRUST_ANCHORS stops the start, not the first verify.
  await deps.verifier.ready();
  const { app } = createApp(deps, { surfaces: options.surfaces });
  const server = http.createServer(app.callback());
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? deps.config.port, options.host ?? deps.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    server,
    url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      }),
  };
}
