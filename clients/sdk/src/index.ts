export { SvcClient } from './client';
export { type DownloadedFile, type Progress, safeFileName, type UploadSource } from './files';
export { type ClientOptions, type RetryOptions, SvcError, VERSION } from './http';
export { OPERATION_INPUTS } from './inputs';
export type { components, operations, paths, webhooks } from './openapi';
export type * from './types';
export { type ApplyWait, type BulkWait, DEFAULT_APPLY_WAIT_MS, DEFAULT_BULK_WAIT_MS } from './waits';
