import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { goInstall, onPath, toolCacheDirectory } from './go-install';

/** The Temporal CLI release that provides the dev server (newest that `go install` accepts). */
export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';
const run = promisify(execFile);

export function cacheDirectory(): string {
  return toolCacheDirectory(`temporal-${TEMPORAL_CLI_VERSION}`);
}

async function versionOf(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 15_000 });
    return /temporal version (\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
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
  await goInstall({
    target: cacheDirectory(),
    module: MODULE,
    version: `v${TEMPORAL_CLI_VERSION}`,
    flags: ['-ldflags', `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`],
    what: 'the Temporal CLI',
    missing:
      'no Temporal CLI found (TEMPORAL_CLI, PATH, cache) and Go is not installed to build it; ' +
      'install the Temporal CLI or set TEMPORAL_ADDRESS to a running Temporal server',
    log,
  });
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
