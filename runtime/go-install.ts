// Tools the service runs beside itself (the Temporal CLI, MinIO for tests) built once from the Go
// module proxy with `go install` and cached, as the machine's rules ask: nothing is downloaded as a
// binary at run time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where built tools are kept: $SVC_CACHE_DIR, else $XDG_CACHE_HOME/svc, else ~/.cache/svc; one directory per tool and version. */
export function toolCacheDirectory(name: string): string {
  const base = process.env.SVC_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'svc');
  return path.join(base, name);
}

/** An executable of that name on PATH, or undefined. */
export function onPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(directory, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * `go install <module>@<version>` into `target` (CGO off, the given flags), retried once with
 * GOSUMDB=off when the checksum database is out of reach (the module's go.sum still pins its
 * dependencies). `missing` is the error to raise when Go itself is not installed.
 */
export async function goInstall(options: {
  target: string;
  module: string;
  version: string;
  flags: string[];
  what: string;
  missing: string;
  log: (line: string) => void;
}): Promise<void> {
  const go = onPath('go') ?? (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) throw new Error(options.missing);
  fs.mkdirSync(options.target, { recursive: true });
  options.log(`building ${options.what} ${options.version} with go install (once; cached in ${options.target}) ...`);
  const args = ['install', ...options.flags, `${options.module}@${options.version}`];
  const attempt = (extraEnv: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(go, args, {
        env: { ...process.env, CGO_ENABLED: '0', GOBIN: options.target, ...extraEnv },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code ?? 1));
    });
  if ((await attempt({})) === 0) return;
  options.log('go install failed; retrying once with GOSUMDB=off (the checksum database may be unreachable)');
  if ((await attempt({ GOSUMDB: 'off' })) !== 0) throw new Error(`go install ${options.module}@${options.version} failed`);
}
