import { z } from 'zod';

export const WebhookCreateSchema = z.strictObject({
  url: z.url({ protocol: /^https$/ }).max(2000),
  events: z.array(z.string().min(1).max(100)).min(1).max(50).optional(),
  description: z.string().trim().max(500).optional(),
});
export type WebhookCreateReq = z.infer<typeof WebhookCreateSchema>;
