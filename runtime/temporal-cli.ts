import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** The Temporal CLI release that provides the dev server (newest that `go install` accepts). */
export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';
const run = promisify(execFile);

export function cacheDirectory(): string {
  const base = process.env.SVC_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'svc');
  return path.join(base, `temporal-${TEMPORAL_CLI_VERSION}`);
}

async function versionOf(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 15_000 });
    return /temporal version (\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

function onPath(name: string): string | undefined {
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

async function goInstall(target: string, log: (line: string) => void): Promise<void> {
  const go = onPath('go') ?? (fs.existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new Error(
      'no Temporal CLI found (TEMPORAL_CLI, PATH, cache) and Go is not installed to build it; ' +
        'install the Temporal CLI or set TEMPORAL_ADDRESS to a running Temporal server',
    );
  }
  fs.mkdirSync(target, { recursive: true });
  log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (once; cached in ${target}) ...`);
  const args = [
    'install',
    '-ldflags',
    `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
    `${MODULE}@v${TEMPORAL_CLI_VERSION}`,
  ];
  const attempt = (extraEnv: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(go, args, {
        env: { ...process.env, CGO_ENABLED: '0', GOBIN: target, ...extraEnv },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code ?? 1));
    });
  if ((await attempt({})) === 0) return;
  // The checksum database may be out of reach; the module's go.sum still pins its dependencies.
  log('go install failed; retrying once with GOSUMDB=off (the checksum database may be unreachable)');
  if ((await attempt({ GOSUMDB: 'off' })) !== 0) {
    throw new Error(`go install ${MODULE}@v${TEMPORAL_CLI_VERSION} failed`);
  }
}

/**
 * The `temporal` binary: TEMPORAL_CLI, else `temporal` on PATH, else the cached build, else built
 * once with `go install` into the cache. The PATH and cache copies must be the pinned version.
 */
export async function ensureTemporalCli(options: { explicit?: string; log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  if (options.explicit) {
    if (!(await versionOf(options.explicit))) throw new Error(`TEMPORAL_CLI=${options.explicit} is not a runnable temporal binary`);
    return options.explicit;
  }
  const fromPath = onPath('temporal');
  if (fromPath && (await versionOf(fromPath)) === TEMPORAL_CLI_VERSION) return fromPath;
  const cached = path.join(cacheDirectory(), 'temporal');
  if ((await versionOf(cached)) === TEMPORAL_CLI_VERSION) return cached;
  await goInstall(cacheDirectory(), log);
  const built = await versionOf(cached);
  if (built !== TEMPORAL_CLI_VERSION) throw new Error(`built ${cached} reports version ${built ?? 'none'}`);
  return cached;
}

// `node --import tsx runtime/temporal-cli.ts` prints the binary's path (building it when missing).
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI }).then(
    (binary) => process.stdout.write(`${binary}\n`),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
