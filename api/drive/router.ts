import type { Routes } from '../http/route';
import { ListQuerySchema } from '../shared/schema';

export function driveRoutes(routes: Routes): void {
  const base = { tag: 'Drive' } as const;
  routes.add({
    ...base,
    method: 'post',
    path: '/assets',
    operationId: 'uploadAsset',
    summary: 'Upload a Drive file (zip, office documents, images, pdf); returns drive_file_id',
    description: 'The raw file as the body (with Content-Type and `?filename=`), or multipart/form-data with the field `file`.',
    status: 201,
    errors: ['payload_too_large', 'unsupported_media_type'],
  });
  routes.add({
    ...base,
    method: 'get',
    path: '/drive',
    operationId: 'listDrive',
    summary: 'Drive items of this principal',
    query: ListQuerySchema,
  });
}
