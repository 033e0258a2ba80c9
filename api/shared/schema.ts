import { z } from 'zod';

/** `?limit=` (1–100, default 20) and `?cursor=` of every list endpoint (DESIGN: HTTP conventions). */
export const ListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;

export const IdParamsSchema = z.strictObject({ id: z.string().min(1).max(100) });
export const TokenParamsSchema = z.strictObject({ token: z.string().min(1).max(200) });

export const EmailSchema = z.email().max(320);
export const NameSchema = z.string().trim().min(1).max(200);
export const ConfirmSchema = z.strictObject({ confirm: z.literal(true) });
export const ReasonSchema = z.strictObject({ reason: z.string().trim().min(1).max(2000) });
export const TokenBodySchema = z.strictObject({ token: z.string().min(1).max(200) });
export const EmptyBodySchema = z.strictObject({});

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}
