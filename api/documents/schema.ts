import { z } from 'zod';
import { EmailSchema, NameSchema } from '../shared/schema';

export const SignerInputSchema = z.strictObject({ name: NameSchema, email: EmailSchema });

export const DocumentCreateSchema = z.strictObject({
  template_id: z.string().min(1).max(100),
  name: NameSchema,
  signers: z.array(SignerInputSchema).min(1).max(50),
  send: z.boolean().optional(),
});
export type DocumentCreateReq = z.infer<typeof DocumentCreateSchema>;

export const DocumentSignersAddSchema = z.strictObject({ signers: z.array(SignerInputSchema).min(1).max(50) });
export type DocumentSignersAddReq = z.infer<typeof DocumentSignersAddSchema>;
