import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { withPreviousKeys } from './keyring';

/**
 * The key behind signed links and cookies: SVC_SECRET_KEY, or (outside production) one generated
 * once and kept in <dataDir>/secret.key (0600), so links survive restarts of an embedded service.
 */
export function loadSecretKey(options: { secretKey?: string; previous?: readonly string[]; dataDir: string }): Buffer {
  const previous = (options.previous ?? []).map((key) => Buffer.from(key, 'utf8'));
  if (options.secretKey) return withPreviousKeys(Buffer.from(options.secretKey, 'utf8'), previous);
  const file = path.join(options.dataDir, 'secret.key');
  try {
    return withPreviousKeys(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'), previous);
  } catch {
    fs.mkdirSync(options.dataDir, { recursive: true });
    const key = randomBytes(32).toString('base64');
    try {
      fs.writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
    } catch {
      // another process wrote it first: use theirs
    }
    return withPreviousKeys(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'), previous);
  }
}
