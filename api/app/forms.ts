import Busboy from 'busboy';
import type { Context } from 'koa';
import { errors, type ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { isStorableText, printable, unstorableInput } from '../../lib/text';
import { readLimitedBody, tooLarge, unreadBody } from '../http/body';

export interface UploadedFile {
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

export interface Form {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
}

/** Text PostgreSQL refuses (NUL) in a field's name or value, or a file's name, is refused naming the field. */
function checkText(name: string, ...values: string[]): void {
  if (!isStorableText(name) || values.some((value) => !isStorableText(value))) throw unstorableInput(printable(name));
}

/** Multipart under one byte limit for the whole body, counted as it streams from the request into busboy. */
function multipart(ctx: Context, limit: number): Promise<Form> {
  return new Promise((resolve, reject) => {
    if (Number(ctx.get('content-length') || '0') > limit) return reject(tooLarge(ctx, limit, 'form'));
    const form: Form = { fields: {}, files: {} };
    // Worded now, in the request's locale: busboy's events run outside the request's async context.
    const unreadable = t('app.form.unreadable');
    let parser: Busboy.Busboy;
    try {
      parser = Busboy({ headers: ctx.req.headers, limits: { fileSize: limit, files: 3, fields: 50, fieldSize: limit } });
    } catch {
      reject(errors.invalidRequest(unreadable));
      return;
    }
    let settled = false;
    const fail = (error: ServiceError) => {
      if (settled) return;
      settled = true;
      ctx.req.unpipe(parser);
      ctx.req.off('data', count);
      parser.destroy();
      reject(error);
    };
    let size = 0;
    const count = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(tooLarge(ctx, limit, 'form'));
    };
    // Busboy names a part without a name (or with `name=""`) undefined, whatever its types say: it is the field ''.
    parser.on('field', (unnamed, value) => {
      const name = unnamed ?? '';
      try {
        checkText(name, value);
        form.fields[name] = value;
      } catch (error) {
        fail(error as ServiceError);
      }
    });
    parser.on('file', (unnamed, stream, info) => {
      const name = unnamed ?? '';
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge(ctx, limit, 'form')));
      // Busboy destroys an unfinished file's stream with an error (a form cut short, or refused mid-file):
      // an error event nobody listens to would end the process.
      stream.on('error', () => fail(errors.invalidRequest(unreadable)));
      stream.on('end', () => {
        try {
          checkText(name, info.filename ?? '');
          if (info.filename) form.files[name] = { filename: info.filename, mimeType: info.mimeType, bytes: Buffer.concat(chunks) };
        } catch (error) {
          fail(error as ServiceError);
        }
      });
    });
    parser.on('error', () => fail(errors.invalidRequest(unreadable)));
    // A client that leaves mid-body ends the request, not the pipe: without this busboy would wait forever.
    ctx.req.on('error', (error) => fail(unreadBody(error)));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve(form);
    });
    ctx.req.on('data', count);
    ctx.req.pipe(parser);
  });
}

/** A posted form, url-encoded or multipart with files, of at most `limit` bytes in all. */
export async function readForm(ctx: Context, limit = 64 * 1024): Promise<Form> {
  if (ctx.is('multipart/form-data')) return multipart(ctx, limit);
  const fields = [...new URLSearchParams((await readLimitedBody(ctx, limit, 'form')).toString('utf8'))];
  for (const [name, value] of fields) checkText(name, value);
  return { fields: Object.fromEntries(fields), files: {} };
}
