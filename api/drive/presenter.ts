import type { DriveFile } from '../../db/models';
import type { DriveFileResponse } from './schema';

export function presentDriveFile(file: DriveFile): DriveFileResponse {
  return {
    drive_file_id: file.id,
    name: file.name,
    kind: file.kind,
    media_type: file.media_type,
    size: Number(file.size),
    sha256: file.sha256,
    created_at: file.created_at.toISOString(),
  };
}
