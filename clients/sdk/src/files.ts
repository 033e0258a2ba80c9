import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Http, SvcError } from './http';
import type { DriveFile } from './types';

/** Bytes moved so far and the total when known: for progress bars. */
export type Progress = (done: number, total: number | undefined) => void;

export interface UploadSource {
  /** A file on disk (streamed, and retried from its start), or the bytes themselves. */
  path?: string;
  bytes?: Uint8Array;
  /** A stream (sent once: a stream cannot be replayed on a retry). */
  stream?: Readable;
  /** Its size when known (a stream's): sent as Content-Length, so the service can refuse an oversized file at once. */
  size?: number;
  /** The name the Drive keeps (default: the path's base name). */
  filename?: string;
  onProgress?: Progress;
}

function counted(onProgress: Progress | undefined, total: number | undefined): Transform {
  let done = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length;
      onProgress?.(done, total);
      callback(null, chunk);
    },
  });
}

/**
 * POST /assets with the file as the raw body, streamed (never read whole into memory) with its
 * Content-Length, counting bytes for progress. A path or bytes can be retried (one Idempotency-Key);
 * a stream is sent once.
 */
export async function uploadAsset(client: Http, source: UploadSource, idempotencyKey: string): Promise<DriveFile> {
  const filename = source.filename ?? (source.path ? path.basename(source.path) : undefined);
  const size = source.path ? (await fs.stat(source.path)).size : source.bytes ? source.bytes.length : source.size;
  const open = (): Readable => {
    if (source.path) return createReadStream(source.path);
    if (source.bytes) return Readable.from([Buffer.from(source.bytes)]);
    if (source.stream) return source.stream;
    throw new TypeError('uploadAsset needs a path, bytes or a stream');
  };
  const target = new URL(client.url('/v1/assets', filename ? { filename } : undefined));
  const send = () =>
    new Promise<DriveFile>((resolve, reject) => {
      const headers: Record<string, string> = {
        ...client.headers({ idempotencyKey }),
        'content-type': 'application/octet-stream',
        ...(size !== undefined ? { 'content-length': String(size) } : {}),
      };
      const request = (target.protocol === 'https:' ? https : http).request(target, { method: 'POST', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve(JSON.parse(text) as DriveFile);
          const fake = new Response(text, { status, headers: response.headers as Record<string, string> });
          client.errorOf(fake).then(reject, reject);
        });
      });
      request.on('error', (error) => reject(new SvcError('network_error', error.message, 0)));
      // An answer before the whole body (413, 415, 401) is the answer: stop sending.
      request.on('response', () => undefined);
      pipeline(open(), counted(source.onProgress, size), request).catch(() => undefined);
    });
  return client.withRetries(send, !source.stream);
}

export interface DownloadedFile {
  path: string;
  name: string;
  size: number;
  sha256: string;
}

/** A file name as a folder can hold it: no path, no control characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = [...base].filter((character) => character.charCodeAt(0) > 0x1f && character !== '\x7f').join('');
  return clean && clean !== '.' && clean !== '..' ? clean : 'download';
}

/**
 * Streams each file of a download answer into `directory` as it arrives, hashing it on the way; a
 * file whose SHA-256 or length is not what the service announced is removed and refused.
 */
export async function saveFiles(
  client: Http,
  files: Array<{ name: string; size: number; sha256: string; url: string }>,
  directory: string,
  onProgress?: (file: { name: string; size: number }, done: number) => void,
): Promise<DownloadedFile[]> {
  await fs.mkdir(directory, { recursive: true });
  const saved: DownloadedFile[] = [];
  for (const file of files) {
    const target = path.join(directory, safeFileName(file.name));
    const response = await client.fetchRaw(file.url);
    if (!response.body) throw new SvcError('download_failed', `No body for ${file.name}.`, response.status);
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        size += chunk.length;
        onProgress?.(file, size);
        callback(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), tap, createWriteStream(target));
    const sha256 = hash.digest('hex');
    if (sha256 !== file.sha256 || size !== file.size) {
      await fs.rm(target, { force: true });
      throw new SvcError(
        'checksum_mismatch',
        `${file.name}: received ${size} bytes with SHA-256 ${sha256}; expected ${file.size} bytes with ${file.sha256}.`,
        0,
      );
    }
    saved.push({ path: target, name: file.name, size, sha256 });
  }
  return saved;
}
