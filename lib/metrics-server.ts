import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './log';
import { registry } from './metrics';

/** Whether an Authorization header is `Bearer <token>`, compared in constant time. */
export function metricsAuthorized(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  // Digests have one length, so the comparison shows neither where they differ nor the token's length.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

/** The registry in Prometheus text format. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * An internal listener that serves only GET /metrics (SVC_METRICS_PORT, SVC_WORKER_METRICS_PORT),
 * on 127.0.0.1 unless SVC_METRICS_HOST says otherwise; with a token set, it asks for it here too.
 */
export async function startMetricsServer(options: { host: string; port: number; token?: string; log: Logger }): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (options.token && !metricsAuthorized(request.headers.authorization, options.token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('unauthorized\n');
      return;
    }
    metricsText().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : body),
      (error: Error) => {
        options.log.error('metrics scrape failed', { error });
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The internal metrics listener on `port` (SVC_METRICS_PORT or SVC_WORKER_METRICS_PORT), or none when it is unset. */
export async function startMetricsListener(
  settings: { host: string; token?: string },
  port: number | undefined,
  log: Logger,
): Promise<MetricsServer | undefined> {
  if (port === undefined) return undefined;
  const server = await startMetricsServer({ host: settings.host, port, token: settings.token, log });
  log.info('metrics listening', { url: server.url });
  return server;
}
