import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import type { Services } from '../activities/services';
import { errorMiddleware } from '../api/http/errors-middleware';
import { Routes } from '../api/http/route';
import type { Logger } from '../lib/log';

export interface RoutesServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Routes a test registers on the real registry, served under /v1 with the API's error middleware:
 * for registry behaviour no route of the contract uses yet (a streaming body, a response that drifts).
 */
export async function serveRoutes(deps: Services, register: (routes: Routes) => void, log: Logger = deps.log): Promise<RoutesServer> {
  const app = new Koa();
  const router = new Router({ prefix: '/v1' });
  register(new Routes(router, deps));
  app.use(errorMiddleware({ docsUrl: deps.config.docsUrl, log }));
  app.use(router.routes());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
