import type { Readable } from 'node:stream';
import Busboy from 'busboy';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { StreamBody } from './body';

export interface UploadedStream {
  stream: Readable;
  filename?: string;
}

/**
 * The file of a streamed upload: the raw body itself, or the first `field` file of a
 * multipart/form-data body, as a stream (never buffered). A failure of the body (413 past the
 * limit, a client gone mid-body) reaches the file stream too.
 */
export function uploadedFile(body: StreamBody, options: { field: string; filename?: string }): Promise<UploadedStream> {
  if (!/^\s*multipart\/form-data\b/i.test(body.type)) return Promise.resolve({ stream: body.stream, filename: options.filename });
  return new Promise((resolve, reject) => {
    let parser: Busboy.Busboy;
    try {
      parser = Busboy({ headers: { 'content-type': body.type }, limits: { files: 1, fields: 20, fieldSize: 64 * 1024 } });
    } catch {
      reject(errors.invalidRequest(t('errors.http.multipart_no_boundary')));
      return;
    }
    let file: Readable | undefined;
    const fail = (error: unknown) => {
      file?.destroy(error as Error);
      parser.destroy();
      reject(error);
    };
    body.stream.on('error', fail);
    parser.on('error', () => fail(errors.invalidRequest(t('errors.http.multipart_body_could_not_read'))));
    parser.on('file', (name, stream, info) => {
      if (file || (name ?? '') !== options.field) {
        stream.resume();
        return;
      }
      file = stream;
      // Busboy destroys a file cut short with an error; its reader (the blob store) sees it.
      resolve({ stream, filename: options.filename ?? info.filename });
    });
    parser.on('close', () => {
      if (!file)
        reject(
          errors.invalidRequest(t('errors.http.multipart_body_no_file_field', { field: options.field }), [
            { path: options.field, message: 'required' },
          ]),
        );
    });
    body.stream.pipe(parser);
  });
}
