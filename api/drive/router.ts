import { agentActor } from '../../activities/documents/documents';
import { deleteDriveFile, findDriveFile, listDrive, uploadAsset } from '../../activities/drive/drive';
import type { Services } from '../../activities/services';
import { uploadedFile } from '../http/multipart';
import { requestMeta } from '../http/request';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema } from '../shared/schema';
import { presentDriveFile } from './presenter';
import {
  AssetUploadQuerySchema,
  DriveDeletedSchema,
  DriveFileResponseSchema,
  DriveListQuerySchema,
  DriveListResponseSchema,
} from './schema';

export function driveRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Drive', needs: { scope: 'drive:write' } } as const;
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/assets',
      operationId: 'uploadAsset',
      summary: 'Upload a Drive file (zip, office documents, images, pdf); returns drive_file_id',
      description: `The raw file as the body (with any Content-Type and \`?filename=\`), or multipart/form-data with the field \`file\`. The kind is sniffed from the bytes (anything else 415); at most SVC_UPLOAD_LIMIT_BYTES (default 100 MiB, else 413). The body is streamed to storage, never held whole; a refused or interrupted upload leaves nothing.`,
      stream: { types: ['*/*'], limit: deps.config.uploadLimitBytes, field: 'file' },
      query: AssetUploadQuerySchema,
      response: DriveFileResponseSchema,
      status: 201,
      errors: ['payload_too_large', 'unsupported_media_type'],
    },
    async (ctx, { stream, query }) => {
      const caller = callerOf(ctx);
      const upload = await uploadedFile(stream, { field: 'file', filename: query.filename });
      const file = await uploadAsset(
        deps,
        caller,
        { source: upload.stream, filename: upload.filename },
        agentActor(caller, requestMeta(ctx)),
      );
      return presentDriveFile(file);
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/drive',
      operationId: 'listDrive',
      summary: 'Drive files of this key’s principal, newest first',
      query: DriveListQuerySchema,
      response: DriveListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await listDrive(deps.db, callerOf(ctx).principal.id, query);
      return { data: items.map(presentDriveFile), next_cursor };
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/drive/:id',
      operationId: 'getDriveFile',
      summary: 'One Drive file',
      params: IdParamsSchema,
      response: DriveFileResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => presentDriveFile(await findDriveFile(deps.db, callerOf(ctx).principal.id, params.id)),
  );
  routes.add(
    {
      ...base,
      method: 'delete',
      path: '/drive/:id',
      operationId: 'deleteDriveFile',
      summary: 'Remove a Drive file (not while a transfer that is not cancelled, or a draft or sent document, uses it)',
      params: IdParamsSchema,
      response: DriveDeletedSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      const file = await deleteDriveFile(deps.db, caller, params.id, agentActor(caller, requestMeta(ctx)));
      return { drive_file_id: file.id, deleted: true as const };
    },
  );
}
