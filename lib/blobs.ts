import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Bytes streamed in and hashed on the way, held aside until they are kept or dropped. */
export interface StagedBlob {
  sha256: string;
  size: number;
  /** A local file with the bytes, to inspect them (sniff their type) before they are kept. */
  path: string;
  /** Keeps the bytes under their SHA-256 (idempotent); the staged file is gone afterwards. */
  commit(): Promise<void>;
  /** Drops the bytes; the staged file is gone afterwards. */
  discard(): Promise<void>;
}

/** Content-addressed files: a blob's name is the SHA-256 of its bytes, so writes are idempotent. */
export interface BlobStore {
  put(bytes: Uint8Array): Promise<string>;
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
  /**
   * Streams a body into a staging file while hashing and counting it, never holding it whole in
   * memory. Nothing is kept until commit(); a source that fails midway leaves nothing behind.
   */
  stage(source: Readable | AsyncIterable<Uint8Array>): Promise<StagedBlob>;
  /** A blob's bytes as a stream, or the inclusive byte range `start`–`end` of them. */
  stream(sha256: string, range?: { start: number; end: number }): Promise<Readable>;
  /** A blob's length in bytes. */
  size(sha256: string): Promise<number>;
}

const SHA256 = /^[0-9a-f]{64}$/;
/** Staged files older than this are left from a process that died mid-upload and are removed. */
const STALE_STAGING_MS = 24 * 3600_000;

/** Refuses anything but a lower-case hex SHA-256, so a name can never reach outside the store. */
export function checkSha256(sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
  return sha256;
}

/**
 * Streams a body into a new file under `staging` while hashing and counting it; a source that fails
 * midway leaves no file. The first call of a process removes staged files left by dead processes.
 */
export function createStager(staging: string) {
  let swept = false;
  async function sweepStaging(): Promise<void> {
    if (swept) return;
    swept = true;
    const entries = await fs.readdir(staging).catch(() => [] as string[]);
    for (const name of entries) {
      const file = path.join(staging, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > STALE_STAGING_MS) await fs.rm(file, { force: true });
    }
  }
  return async (source: Readable | AsyncIterable<Uint8Array>): Promise<{ sha256: string; size: number; path: string }> => {
    await fs.mkdir(staging, { recursive: true });
    await sweepStaging();
    const file = path.join(staging, `${randomBytes(12).toString('hex')}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, counted, createWriteStream(file, { mode: 0o600 }));
    } catch (error) {
      await fs.rm(file, { force: true });
      throw error;
    }
    return { sha256: hash.digest('hex'), size, path: file };
  };
}

export function createFileBlobStore(directory: string): BlobStore {
  const stageFile = createStager(path.join(directory, '.staging'));
  const location = (sha256: string) => path.join(directory, checkSha256(sha256).slice(0, 2), sha256);
  const exists = async (file: string) => {
    try {
      await fs.access(file);
      return true;
    } catch {
      return false;
    }
  };
  /** Moves a finished file to its content address (an existing copy is identical: the new one is dropped). */
  async function keep(file: string, sha256: string): Promise<void> {
    const target = location(sha256);
    if (await exists(target)) {
      await fs.rm(file, { force: true });
      return;
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(file, target);
  }
  return {
    async put(bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const target = location(sha256);
      if (await exists(target)) return sha256;
      await fs.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      await fs.writeFile(temporary, bytes, { mode: 0o600 });
      await fs.rename(temporary, target);
      return sha256;
    },
    async get(sha256) {
      return fs.readFile(location(sha256));
    },
    has(sha256) {
      return exists(location(sha256));
    },
    async stage(source) {
      const { sha256, size, path: file } = await stageFile(source);
      return {
        sha256,
        size,
        path: file,
        commit: () => keep(file, sha256),
        discard: () => fs.rm(file, { force: true }),
      };
    },
    async stream(sha256, range) {
      const file = location(sha256);
      await fs.access(file);
      return createReadStream(file, range ? { start: range.start, end: range.end } : {});
    },
    async size(sha256) {
      return (await fs.stat(location(sha256))).size;
    },
  };
}
