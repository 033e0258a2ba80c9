import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { type BlobStore, checkSha256, createStager } from './blobs';
import { errors } from './errors';
import { t } from './i18n';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Keys are `<prefix>/<first two hex digits>/<sha256>`. */
  prefix?: string;
  /** An S3-compatible server (MinIO …); unset means AWS S3. */
  endpoint?: string;
  region: string;
  forcePathStyle?: boolean;
  /** Unset: the SDK's default chain (AWS_* variables, profile, container or instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Where stage() writes, hashes and lets callers sniff a body before commit() sends it on. */
  stagingDirectory: string;
  /** Multipart part size (at least 5 MiB, S3's floor); a staged body up to one part goes in one PUT. */
  partSize?: number;
  /** Parts of one upload in flight at once: memory per upload is about partSize × queueSize. */
  queueSize?: number;
  /** Connections to the server per process; each streaming download holds one while it runs. */
  maxSockets?: number;
}

const MiB = 1024 * 1024;

/** A missing blob fails as the file store's does (code ENOENT), so callers treat both alike. */
class BlobNotFound extends Error {
  readonly code = 'ENOENT';
  constructor(sha256: string) {
    super(`no blob ${sha256}`);
  }
}

function isNotFound(error: unknown): boolean {
  if (error instanceof S3ServiceException) {
    return error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey';
  }
  return false;
}

/**
 * Whether a failure means the store cannot be reached or is failing now (no answer, a timeout, a
 * 5xx, throttling), as opposed to an answer about the request (404, 403 …): the caller is told 503
 * service_unavailable and an activity retries, rather than a 500 or a permanent failure.
 */
function isUnavailable(error: unknown): boolean {
  if (error instanceof S3ServiceException) {
    const status = error.$metadata?.httpStatusCode ?? 0;
    return status >= 500 || status === 429 || ['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout'].includes(error.name);
  }
  const { code, name } = error as { code?: string; name?: string };
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code ?? '') ||
    ['TimeoutError', 'RequestTimeout'].includes(name ?? '')
  );
}

/** Runs a call to the store, turning "it does not answer" into 503 service_unavailable. */
async function reaching<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isUnavailable(error)) throw errors.serviceUnavailable(t('errors.services.object_store_unreachable'));
    throw error;
  }
}

/**
 * Content-addressed blobs in an S3 bucket (AWS S3, MinIO or any S3-compatible server), so an API and
 * workers on different hosts share them. Staging stays local: a body is hashed (its key) and sniffed
 * before anything is sent, then commit() streams the file up with multipart.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore & { client: S3Client; key(sha256: string): string } {
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    credentials: options.credentials,
    // Checksums only when an operation needs one: every upload names its SHA-256 itself, and
    // S3-compatible servers differ in the default CRC checksums newer SDKs add.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      httpAgent: { keepAlive: true, maxSockets: options.maxSockets ?? 200 },
      httpsAgent: { keepAlive: true, maxSockets: options.maxSockets ?? 200 },
    },
  });
  const prefix = (options.prefix ?? 'blobs').replace(/^\/+|\/+$/g, '');
  const key = (sha256: string) => `${prefix}/${checkSha256(sha256).slice(0, 2)}/${sha256}`;
  const stageFile = createStager(options.stagingDirectory);
  const partSize = Math.max(options.partSize ?? 8 * MiB, 5 * MiB);
  const base64 = (sha256: string) => Buffer.from(sha256, 'hex').toString('base64');

  async function head(sha256: string) {
    try {
      return await reaching(() => client.send(new HeadObjectCommand({ Bucket: options.bucket, Key: key(sha256) })));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
  async function open(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    try {
      const reply = await reaching(() =>
        client.send(
          new GetObjectCommand({
            Bucket: options.bucket,
            Key: key(sha256),
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        ),
      );
      return reply.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFound(sha256);
      throw error;
    }
  }

  return {
    client,
    key,
    async put(bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (await head(sha256)) return sha256;
      // The server checks the bytes against the SHA-256 they are filed under.
      await reaching(() =>
        client.send(
          new PutObjectCommand({
            Bucket: options.bucket,
            Key: key(sha256),
            Body: bytes,
            ContentLength: bytes.byteLength,
            ChecksumSHA256: base64(sha256),
          }),
        ),
      );
      return sha256;
    },
    async get(sha256) {
      const chunks: Buffer[] = [];
      for await (const chunk of await open(sha256)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    async has(sha256) {
      return (await head(sha256)) !== undefined;
    },
    async stage(source) {
      const staged = await stageFile(source);
      const discard = () => fs.rm(staged.path, { force: true });
      return {
        ...staged,
        async commit() {
          if (!(await head(staged.sha256))) {
            const body = createReadStream(staged.path);
            const upload = new Upload({
              client,
              params: {
                Bucket: options.bucket,
                Key: key(staged.sha256),
                Body: body,
                ContentLength: staged.size,
                // Each part is checked by the server as it arrives.
                ChecksumAlgorithm: 'SHA256',
              },
              partSize,
              queueSize: options.queueSize ?? 4,
              leavePartsOnError: false,
            });
            try {
              await reaching(() => upload.done());
            } finally {
              body.destroy();
            }
          }
          await discard();
        },
        discard,
      };
    },
    stream: open,
    async size(sha256) {
      const found = await head(sha256);
      if (!found) throw new BlobNotFound(sha256);
      return Number(found.ContentLength);
    },
  };
}
