import net from 'node:net';
import { ConfigError } from '../lib/config/errors';

/** A port a process of ours binds, on which address, and the variable that chooses it. */
export interface PortSetting {
  variable: string;
  port: number;
  host: string;
}

/** The one line a taken port stops a start with. */
export function portTaken(setting: PortSetting): ConfigError {
  return new ConfigError(
    `port ${setting.port} (${setting.variable}) is in use by another process: stop it, or set ${setting.variable} to a free port`,
  );
}

/** A listen that failed because its port was taken meanwhile, told as portTaken; other errors as they are. */
export function explainListenError(error: unknown, setting: PortSetting): unknown {
  return (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portTaken(setting) : error;
}

function tryListen(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', resolve);
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Stops a start before it binds anything when one of its ports is taken or named twice (0 picks a
 * free port, so it never is). A port on 127.0.0.1 is tried on ::1 too: the `localhost` of the
 * printed links may reach a listener there.
 */
export async function requireFreePorts(settings: PortSetting[]): Promise<void> {
  const chosen = settings.filter((setting) => setting.port !== 0);
  for (const [index, setting] of chosen.entries()) {
    const twin = chosen.slice(index + 1).find((other) => other.port === setting.port);
    if (twin) throw new ConfigError(`${setting.variable} and ${twin.variable} are both ${setting.port}: set one to another port`);
  }
  for (const setting of chosen) {
    for (const host of setting.host === '127.0.0.1' ? ['127.0.0.1', '::1'] : [setting.host]) {
      const error = await tryListen(setting.port, host);
      if (!error) continue;
      if (error.code === 'EADDRINUSE') throw portTaken(setting);
      if (error.code === 'EACCES') {
        throw new ConfigError(`port ${setting.port} (${setting.variable}) needs privileges: set ${setting.variable} to a port above 1023`);
      }
      // A machine without IPv6 has no ::1 to take.
      if (host === '::1' && (error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT')) continue;
      throw error;
    }
  }
}

/** Free ports on 127.0.0.1, distinct (held open together while chosen), for settings of 0 another process must be told. */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
