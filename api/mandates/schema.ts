import { z } from 'zod';
import { listOf } from '../shared/schema';

/** A mandate's policy: what every L2 apply by it keeps to (activities/mandates/policy.ts). */
export const MandatePolicySchema = z
  .object({
    counterparties: z.array(z.string()).optional().meta({
      description:
        'E-mail addresses or domains: every other party of a document (its other signers, and its sender when that is someone else) is one of them.',
    }),
    templates: z
      .array(z.string())
      .optional()
      .meta({ description: 'Template ids the document is made from (or one of `document_hashes`).' }),
    document_hashes: z
      .array(z.string())
      .optional()
      .meta({ description: 'Exact SHA-256 of the document as it is signed (its `pre_sign_hash`).' }),
    daily_cap: z.number().int().optional().meta({ description: 'L2 applies per UTC day, under the service’s 25.' }),
    per_counterparty: z
      .object({ max: z.number().int(), period: z.enum(['day', 'week', 'month']) })
      .optional()
      .meta({ description: 'At most `max` signatures with any one counterparty in the last day, 7 days or 30 days.' }),
    hours: z.object({ from: z.string(), to: z.string(), time_zone: z.string() }).optional().meta({
      description: 'Only between `from` and `to` (HH:MM, `to` excluded; across midnight when `to` is earlier) in the IANA `time_zone`.',
    }),
  })
  .meta({
    description:
      'Out of policy, an L2 sign answers 403 `mandate_scope` naming the constraint (`details[].path` `policy.<constraint>`) and an offer accept escalates to L1 with the constraint in the sign request’s reason. A policy is never edited: a new one is a new grant.',
  });

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
  policy: MandatePolicySchema.nullable(),
  daily_l2_cap: z.number().int().meta({ description: 'L2 applies per UTC day: 25, or the policy’s `daily_cap`.' }),
  l2_applies_today: z.number().int(),
  credential: z.string().nullable().meta({
    description:
      'The mandate credential: an SD-JWT VC (typ `dc+sd-jwt`, ES256; the principal’s e-mail and name selectively disclosed) whose JWT is verifiable against GET /.well-known/jwks.json, its revocation published in the status list it names (docs/receipts.md); null for a mandate granted before credentials',
  }),
});
export type MandateResponse = z.infer<typeof MandateResponseSchema>;

export const MandateListResponseSchema = listOf(MandateResponseSchema);
