// pdfcpu, the independent PDF validator that tests check sealed PDFs with: found (PDFCPU_BINARY, the
// cache) or built once with go install, like MinIO and the Temporal CLI.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { goInstall, toolCacheDirectory } from './go-install';

/** The pdfcpu release that tests validate signatures with. */
export const PDFCPU_VERSION = 'v0.15.0';
const MODULE = 'github.com/pdfcpu/pdfcpu/cmd/pdfcpu';
const run = promisify(execFile);

/** The cached build's directory (beside the other Go tools: runtime/go-install.ts). */
export function pdfcpuCacheDirectory(): string {
  return toolCacheDirectory(`pdfcpu-${PDFCPU_VERSION}`);
}

async function runs(binary: string): Promise<boolean> {
  try {
    // `-c disable`: without it pdfcpu writes a config directory under ~/.config just to print its version.
    const { stdout } = await run(binary, ['-c', 'disable', 'version'], { timeout: 15_000 });
    return new RegExp(`^version: ${PDFCPU_VERSION.replaceAll('.', '\\.')}\\b`, 'm').test(stdout);
  } catch {
    return false;
  }
}

/** The `pdfcpu` binary: PDFCPU_BINARY, else the cached build, else built once with `go install` into the cache. */
export async function ensurePdfcpu(options: { explicit?: string; log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  if (options.explicit) {
    if (!(await runs(options.explicit))) throw new Error(`PDFCPU_BINARY=${options.explicit} is not a runnable pdfcpu ${PDFCPU_VERSION}`);
    return options.explicit;
  }
  const cached = path.join(pdfcpuCacheDirectory(), 'pdfcpu');
  if (await runs(cached)) return cached;
  await goInstall({
    target: pdfcpuCacheDirectory(),
    module: MODULE,
    version: PDFCPU_VERSION,
    flags: ['-trimpath', '-ldflags', '-s -w'],
    what: 'the pdfcpu PDF validator',
    missing: 'no pdfcpu found (PDFCPU_BINARY, cache) and Go is not installed to build it; set PDFCPU_BINARY',
    log,
  });
  if (!(await runs(cached))) throw new Error(`the pdfcpu build at ${cached} does not run`);
  return cached;
}

// `node --import tsx runtime/pdfcpu.ts` prints the binary's path (building it when missing).
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY }).then(
    (binary) => process.stdout.write(`${binary}\n`),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
