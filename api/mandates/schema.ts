import { z } from 'zod';
import { listOf } from '../shared/schema';

export const MandateResponseSchema = z.object({
  mandate_id: z.string(),
  name: z.string(),
  key: z.object({ id: z.string(), label: z.string() }),
  confirmation_level: z.enum(['L1', 'L2']),
  mode: z.enum(['outbound', 'inbound', 'both']),
  status: z
    .enum(['active', 'revoked', 'expired'])
    .meta({ description: 'Only `active` applies a mark; anything else answers `mandate_inactive`.' }),
  expires_at: z.iso.datetime().nullable(),
  consent_version: z.string(),
  granted_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
  daily_l2_cap: z.number().int(),
  l2_applies_today: z.number().int(),
  credential: z.string().nullable().meta({
    description:
      'The mandate credential: a compact JWS (typ `mandate+jwt`, ES256) verifiable against GET /.well-known/jwks.json, its revocation published in the status list it names (docs/receipts.md); null for a mandate granted before credentials',
  }),
});
export type MandateResponse = z.infer<typeof MandateResponseSchema>;

export const MandateListResponseSchema = listOf(MandateResponseSchema);
