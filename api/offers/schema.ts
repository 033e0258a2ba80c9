import { z } from 'zod';

export const OfferCreateSchema = z.strictObject({
  contact_id: z.string().min(1).max(100),
  terms: z.string().trim().min(1).max(10_000),
});
export type OfferCreateReq = z.infer<typeof OfferCreateSchema>;
