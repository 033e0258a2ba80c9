import net from 'node:net';
import Koa, { type Context } from 'koa';

export type ReadOutcome = { settled: false } | { settled: true; value?: unknown; error?: unknown };

/**
 * What a body reader makes of a client that leaves mid-body: the request's Content-Length promises
 * 100 bytes more than it sends, then the client closes its side. `settled: false` if the reader was
 * still waiting after `waitMs`.
 */
export async function readCutShort(
  read: (ctx: Context) => Promise<unknown>,
  type: string,
  body: string,
  waitMs = 2000,
): Promise<ReadOutcome> {
  let done: (outcome: ReadOutcome) => void = () => undefined;
  const outcome = new Promise<ReadOutcome>((resolve) => {
    done = resolve;
  });
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx) => {
    await read(ctx).then(
      (value) => done({ settled: true, value }),
      (error: unknown) => done({ settled: true, error }),
    );
    ctx.body = 'read';
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body) + 100}\r\n\r\n${body}`,
    );
    setTimeout(() => socket.end(), 50);
    return await Promise.race([outcome, new Promise<ReadOutcome>((resolve) => setTimeout(() => resolve({ settled: false }), waitMs))]);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
