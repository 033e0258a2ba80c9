import Busboy from 'busboy';
import type { Context } from 'koa';
import { ServiceError } from '../../activities/errors';

export interface UploadedFile {
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

export interface Form {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
}

async function readBody(ctx: Context, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ServiceError('payload_too_large', `The form is larger than ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function multipart(ctx: Context, limit: number): Promise<Form> {
  return new Promise((resolve, reject) => {
    const form: Form = { fields: {}, files: {} };
    let parser: Busboy.Busboy;
    try {
      parser = Busboy({ headers: ctx.req.headers, limits: { fileSize: limit, files: 3, fields: 50, fieldSize: 256 * 1024 } });
    } catch {
      reject(new ServiceError('invalid_request', 'The form could not be read.'));
      return;
    }
    parser.on('field', (name, value) => {
      form.fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => reject(new ServiceError('payload_too_large', `The file is larger than ${limit} bytes.`)));
      stream.on('end', () => {
        if (info.filename) form.files[name] = { filename: info.filename, mimeType: info.mimeType, bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('error', () => reject(new ServiceError('invalid_request', 'The form could not be read.')));
    parser.on('close', () => resolve(form));
    ctx.req.pipe(parser);
  });
}

/** A posted form: url-encoded, or multipart with files (each at most `limit` bytes). */
export async function readForm(ctx: Context, limit = 64 * 1024): Promise<Form> {
  if (ctx.is('multipart/form-data')) return multipart(ctx, limit);
  const body = await readBody(ctx, limit);
  return { fields: Object.fromEntries(new URLSearchParams(body.toString('utf8'))), files: {} };
}
