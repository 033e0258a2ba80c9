import { type BlobStore, createFileBlobStore } from '../lib/blobs';
import { createS3BlobStore } from '../lib/blobs-s3';
import type { Config } from '../lib/config/config';

/**
 * The configured blob store: files under the data dir, or S3. A module of its own, so a process that
 * needs only this (npm run admin) does not load the whole service (runtime/services.ts).
 */
export function createBlobStore(config: Config): BlobStore {
  const location = config.blobs;
  if (location.kind === 'file') return createFileBlobStore(location.directory);
  return createS3BlobStore(location);
}
