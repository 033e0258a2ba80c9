import { z } from 'zod';
import { EmailSchema, NameSchema } from '../shared/schema';

export const TransferCreateSchema = z.strictObject({
  name: NameSchema,
  drive_file_ids: z.array(z.string().min(1).max(100)).min(1).max(100),
  recipients: z
    .array(z.strictObject({ email: EmailSchema, name: NameSchema }))
    .min(1)
    .max(50),
  document_id: z.string().min(1).max(100).optional(),
  requires_acceptance: z.boolean().optional(),
});
export type TransferCreateReq = z.infer<typeof TransferCreateSchema>;
