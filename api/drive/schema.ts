import { z } from 'zod';
import { ListQuerySchema, listOf } from '../shared/schema';

export const AssetUploadQuerySchema = z.strictObject({
  filename: z.string().min(1).max(255).optional().meta({ description: 'The file’s name (for a raw body; multipart carries its own)' }),
});

export const DriveFileResponseSchema = z.object({
  drive_file_id: z.string(),
  name: z.string(),
  kind: z.string().meta({ description: 'What the bytes are (sniffed): pdf, zip, docx, xlsx, odt, png, jpg …' }),
  media_type: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  created_at: z.iso.datetime(),
});
export type DriveFileResponse = z.infer<typeof DriveFileResponseSchema>;
export const DriveListQuerySchema = ListQuerySchema;
export const DriveListResponseSchema = listOf(DriveFileResponseSchema);
export const DriveDeletedSchema = z.object({ drive_file_id: z.string(), deleted: z.literal(true) });
