import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type AdminContext, errorJson, parseCommand, runCommand } from '../api/admin/commands';

/**
 * Embedded PGlite can be opened by one process only, so while `npm start` runs, `npm run admin`
 * hands its command line to the running service over a unix socket in the data dir (mode 0600:
 * only the user who owns the data can use it, as they could read the database files anyway).
 */
export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, 'admin.sock');
}

export interface AdminSocketReply {
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
}

export async function startAdminSocket(context: AdminContext, dataDir: string): Promise<{ close(): Promise<void> }> {
  const socketPath = adminSocketPath(dataDir);
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      const line = buffer.slice(0, newline);
      socket.removeAllListeners('data');
      void (async () => {
        let reply: AdminSocketReply;
        try {
          const { argv } = JSON.parse(line) as { argv: string[] };
          reply = { ok: true, result: await runCommand(context, parseCommand(argv)) };
        } catch (error) {
          reply = { ok: false, ...errorJson(error) };
        }
        socket.end(`${JSON.stringify(reply)}\n`);
      })();
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

/** Sends a command line to a running service; undefined when none listens on the socket. */
export function sendAdminCommand(dataDir: string, argv: string[]): Promise<AdminSocketReply | undefined> {
  const socketPath = adminSocketPath(dataDir);
  if (!fs.existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.on('data', (chunk) => {
      buffer += chunk;
    });
    socket.on('end', () => {
      try {
        resolve(JSON.parse(buffer) as AdminSocketReply);
      } catch (error) {
        reject(error);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') resolve(undefined);
      else reject(error);
    });
  });
}
