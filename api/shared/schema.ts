import { z } from 'zod';
import { reservedCertificatePhrase } from '../../lib/pdf/certificate';

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
/** A signer's name: printed on the completion certificate, so it may not read like the lines only the service writes. */
export const SignerNameSchema = NameSchema.refine((name) => reservedCertificatePhrase(name) === undefined, {
  message: 'must not contain the phrases the completion certificate reserves: "Signer (via authorized agent)" and "Mandate :"',
});
export const ConfirmSchema = z.strictObject({ confirm: z.literal(true) });
export const ReasonSchema = z.strictObject({ reason: z.string().trim().min(1).max(2000) });
export const TokenBodySchema = z.strictObject({ token: z.string().min(1).max(200) });
export const EmptyBodySchema = z.strictObject({});

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}
