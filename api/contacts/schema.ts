import { z } from 'zod';
import { EmailSchema, NameSchema } from '../shared/schema';

export const ContactCreateSchema = z.strictObject({
  email: EmailSchema,
  name: NameSchema,
  inbox_url: z
    .url({ protocol: /^https$/ })
    .max(2000)
    .optional()
    .meta({ description: 'https URL that receives offer events for this relationship' }),
});
export type ContactCreateReq = z.infer<typeof ContactCreateSchema>;
