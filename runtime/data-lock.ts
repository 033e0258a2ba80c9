import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../lib/config/errors';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process recorded in a pid file, if any. */
export function livePid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One `npm start` per data dir: PGlite files opened by two processes would be corrupted. The lock
 * is a pid file; a stale one (its process gone) is taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'svc.pid');
  const holder = livePid(file);
  if (holder) {
    throw new ConfigError(`another service (pid ${holder}) is running on ${dataDir}: stop it, or set SVC_DATA_DIR to another directory`);
  }
  fs.writeFileSync(file, String(process.pid));
  return {
    release() {
      try {
        if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file, { force: true });
      } catch {
        // already gone
      }
    },
  };
}
