import type Router from '@koa/router';
import { readDocumentDownload } from '../../activities/documents/links';
import { Document, DocumentRevision } from '../../db/models';
import { errors } from '../../lib/errors';
import type { Services } from '../../lib/services';

/** Serves a sealed PDF to whoever holds a signed, unexpired download link (no key: the link is the capability). */
export function fileRoutes(router: Router, deps: Services): void {
  router.get('/files/documents/:file', async (ctx) => {
    const documentId = ctx.params.file.replace(/\.pdf$/, '');
    const link = readDocumentDownload(deps.secret, documentId, typeof ctx.query.token === 'string' ? ctx.query.token : undefined);
    if (!link) throw errors.expired('This download link is invalid or has expired; ask the API for a new one.');
    const document = await Document.query(deps.db).findById(documentId);
    const revision = document && (await DocumentRevision.query(deps.db).findOne({ document_id: documentId, sealed_sha256: link.sha256 }));
    if (!document || !revision) throw errors.notFound('No such document.');
    sendPdf(ctx, await deps.blobs.get(link.sha256), `${document.name}.pdf`, link.sha256);
  });
}

export function sendPdf(
  ctx: {
    set(field: string, value: string): void;
    type: string;
    body: unknown;
    attachment(name: string, options?: { type?: string }): void;
  },
  bytes: Buffer,
  filename: string,
  sha256: string,
  disposition: 'attachment' | 'inline' = 'attachment',
): void {
  ctx.type = 'application/pdf';
  ctx.attachment(filename.replace(/[\\/\r\n"]/g, '_'), { type: disposition });
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Content-SHA256', sha256);
  ctx.body = bytes;
}
