// Docker Compose, to check docker-compose.yml the way users run it (`docker compose config`) on a
// machine without a Docker engine: found (COMPOSE_BINARY, `docker-compose` on PATH, the cache) or
// built once with go install, like pdfcpu and the Temporal CLI. `config` needs no engine.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { goInstall, onPath, toolCacheDirectory } from './go-install';

/** The Compose release the tests check docker-compose.yml with. */
export const COMPOSE_VERSION = 'v2.29.7';
const MODULE = 'github.com/docker/compose/v2/cmd';
const run = promisify(execFile);

export function composeCacheDirectory(): string {
  return toolCacheDirectory(`compose-${COMPOSE_VERSION}`);
}

async function runs(binary: string): Promise<boolean> {
  try {
    const { stdout } = await run(binary, ['version'], { timeout: 15_000 });
    return /Docker Compose version/.test(stdout);
  } catch {
    return false;
  }
}

/** A `docker compose` (v2) binary: COMPOSE_BINARY, else docker-compose on PATH, else the cached build, else built once. */
export async function ensureCompose(options: { explicit?: string; log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  if (options.explicit) {
    if (!(await runs(options.explicit))) throw new Error(`COMPOSE_BINARY=${options.explicit} is not a runnable Docker Compose`);
    return options.explicit;
  }
  const installed = onPath('docker-compose');
  if (installed && (await runs(installed))) return installed;
  // The module's main package is named cmd, so go install names the binary so.
  const cached = path.join(composeCacheDirectory(), 'cmd');
  if (await runs(cached)) return cached;
  await goInstall({
    target: composeCacheDirectory(),
    module: MODULE,
    version: COMPOSE_VERSION,
    flags: ['-trimpath', '-ldflags', '-s -w'],
    what: 'Docker Compose (to check docker-compose.yml)',
    missing: 'no Docker Compose found (COMPOSE_BINARY, docker-compose, cache) and Go is not installed to build it; set COMPOSE_BINARY',
    log,
  });
  if (!(await runs(cached))) throw new Error(`the Docker Compose build at ${cached} does not run`);
  return cached;
}
