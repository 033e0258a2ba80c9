import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The key behind signed links and cookies: SVC_SECRET_KEY, or (outside production) one generated
 * once and kept in <dataDir>/secret.key (0600), so links survive restarts of an embedded service.
 */
export function loadSecretKey(options: { secretKey?: string; dataDir: string }): Buffer {
  if (options.secretKey) return Buffer.from(options.secretKey, 'utf8');
  const file = path.join(options.dataDir, 'secret.key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch {
    fs.mkdirSync(options.dataDir, { recursive: true });
    const key = randomBytes(32).toString('base64');
    try {
      fs.writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
    } catch {
      // another process wrote it first: use theirs
    }
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  }
}
