// The reference of the read benchmarks (bench/reads.ts, bench/profile-reads.ts): Koa and @koa/router,
// one primary-key query on the same database, the row as JSON.
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { connectDb } from '../db/connect';

export async function bareKoa(databaseUrl: string | undefined, dataDir: string) {
  const db = connectDb({ databaseUrl, dataDir, poolMax: 10 });
  const app = new Koa();
  const router = new Router();
  router.get('/documents/:id', async (ctx) => {
    const { rows } = await db.raw('select * from documents where id = ?', [ctx.params.id]);
    if (!rows[0]) ctx.throw(404);
    ctx.body = rows[0];
  });
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await db.destroy();
    },
  };
}
