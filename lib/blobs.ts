import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Content-addressed files: a blob's name is the SHA-256 of its bytes, so writes are idempotent. */
export interface BlobStore {
  put(bytes: Uint8Array): Promise<string>;
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
}

const SHA256 = /^[0-9a-f]{64}$/;

export function createFileBlobStore(directory: string): BlobStore {
  const location = (sha256: string) => {
    if (!SHA256.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
    return path.join(directory, sha256.slice(0, 2), sha256);
  };
  return {
    async put(bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const target = location(sha256);
      try {
        await fs.access(target);
        return sha256;
      } catch {
        // not stored yet
      }
      await fs.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      await fs.writeFile(temporary, bytes, { mode: 0o600 });
      await fs.rename(temporary, target);
      return sha256;
    },
    async get(sha256) {
      return fs.readFile(location(sha256));
    },
    async has(sha256) {
      try {
        await fs.access(location(sha256));
        return true;
      } catch {
        return false;
      }
    },
  };
}
