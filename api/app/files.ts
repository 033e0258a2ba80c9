import type Router from '@koa/router';
import type { Context } from 'koa';
import { readDocumentDownload } from '../../activities/documents/links';
import type { Services } from '../../activities/services';
import { readDownloadLink } from '../../activities/transfers/claims';
import { Document, DocumentRevision, DriveFile, Transfer, TransferFile } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';

/** Serves a sealed PDF to whoever holds a signed, unexpired download link (no key: the link is the capability). */
export function fileRoutes(router: Router, deps: Services): void {
  router.get('/files/documents/:file', async (ctx) => {
    const documentId = ctx.params.file.replace(/\.pdf$/, '');
    const link = readDocumentDownload(deps.secret, documentId, typeof ctx.query.token === 'string' ? ctx.query.token : undefined);
    if (!link) throw errors.expired(t('sign.files.document_link_invalid'));
    const document = await Document.query(deps.db).findById(documentId);
    const revision = document && (await DocumentRevision.query(deps.db).findOne({ document_id: documentId, sealed_sha256: link.sha256 }));
    if (!document || !revision) throw errors.notFound(t('sign.files.no_document'));
    sendPdf(ctx, await deps.blobs.get(link.sha256), `${document.name}.pdf`, link.sha256);
  });

  router.get('/files/transfers/:token', async (ctx) => {
    const grant = readDownloadLink(deps.secret, ctx.params.token);
    if (!grant) throw errors.expired(t('sign.files.transfer_link_invalid'));
    const [transfer, member, file] = await Promise.all([
      Transfer.query(deps.db).findById(grant.transferId),
      TransferFile.query(deps.db).findOne({ transfer_id: grant.transferId, drive_file_id: grant.driveFileId }),
      DriveFile.query(deps.db).findById(grant.driveFileId),
    ]);
    if (transfer?.status !== 'released' || !member || !file) throw errors.notFound(t('sign.files.no_file'));
    await sendBlob(ctx, deps.blobs, { sha256: file.sha256, size: Number(file.size), name: file.name, mediaType: file.media_type });
  });
}

/** A single `bytes=` range of a file of `size` bytes: undefined for none (or one we do not serve), null when unsatisfiable. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

/**
 * Streams a stored file (never read whole) with its length and SHA-256, as an attachment; a single
 * byte range is answered 206 (a download can resume), an unsatisfiable one 416.
 */
export async function sendBlob(
  ctx: Context,
  blobs: BlobStore,
  file: { sha256: string; size: number; name: string; mediaType: string },
): Promise<void> {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  // Someone else's file on our origin: opened directly, nothing of it may run as the app.
  ctx.set('Content-Security-Policy', 'sandbox');
  ctx.set('ETag', `"${file.sha256}"`);
  ctx.set('X-Content-SHA256', file.sha256);
  const range = ctx.get('if-range') && ctx.get('if-range') !== `"${file.sha256}"` ? undefined : byteRange(ctx.get('range'), file.size);
  if (range === null) {
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${file.size}`);
    ctx.body = '';
    return;
  }
  ctx.attachment(file.name.replace(/[\\/\r\n"]/g, '_'));
  ctx.type = file.mediaType;
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    ctx.length = range.end - range.start + 1;
  } else {
    ctx.status = 200;
    ctx.length = file.size;
  }
  // A HEAD gets the headers only: no file is opened for a body that is never sent.
  if (ctx.method === 'HEAD') return;
  ctx.body = await blobs.stream(file.sha256, range ?? undefined);
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
  // A PDF from another tenant, shown inline on the app's origin: a sandbox, so none of it runs as the app.
  ctx.set('Content-Security-Policy', 'sandbox');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Content-SHA256', sha256);
  ctx.body = bytes;
}
