import { z } from 'zod';
import { PLANS } from '../../db/models';
import { FLAG_NAMES } from '../../lib/config/flags';

export const FlagsSchema = z.object(Object.fromEntries(FLAG_NAMES.map((name) => [name, z.boolean()]))).meta({
  description: 'Deploy-time feature switches (SPEC: Feature flags).',
});
export type FlagsResponse = z.infer<typeof FlagsSchema>;

export const ConfirmationLevelSchema = z.enum(['L1', 'L2']);

export const KeySummarySchema = z.object({
  id: z.string(),
  label: z.string(),
  prefix: z.string().meta({ description: 'The first characters of the key, to recognise it; never the secret.' }),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
});

export const MeResponseSchema = z.object({
  key: KeySummarySchema,
  principal: z.object({ id: z.string(), email: z.string(), name: z.string() }),
  tenant_id: z.string(),
  scopes: z.array(z.string()),
  plan: z.enum(PLANS),
  signing_mandate: z
    .object({
      id: z.string(),
      name: z.string(),
      confirmation_level: ConfirmationLevelSchema,
      mode: z.enum(['outbound', 'inbound', 'both']),
      expires_at: z.iso.datetime().nullable(),
    })
    .optional()
    .meta({ description: 'Present only when this key has an active mandate in force (the newest, when several are).' }),
  flags: FlagsSchema,
  allowed_confirmation_levels: z.array(ConfirmationLevelSchema),
});
export type MeResponse = z.infer<typeof MeResponseSchema>;
