import { z } from 'zod';
import { EVENT_NAMES } from '../../activities/events/outbox';
import { DELIVERY_STATUSES } from '../../db/models';
import { listOf } from '../shared/schema';

export const WebhookCreateSchema = z.strictObject({
  url: z.string().max(2000).meta({
    description:
      'https only; must resolve to public unicast addresses only (no loopback, private, link-local or other special ranges, IPv4-embedding IPv6 forms judged by their IPv4).',
  }),
  events: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(50)
    .optional()
    .meta({ description: `Event names to receive (default all, or "*"): ${EVENT_NAMES.join(', ')}.` }),
  description: z.string().trim().max(500).optional(),
});
export type WebhookCreateReq = z.infer<typeof WebhookCreateSchema>;

export const WebhookRotateSchema = z.strictObject({
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .optional()
    .meta({ description: 'How long the previous secret still signs too (default 24 hours).' }),
});

export const WebhookResponseSchema = z.object({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.string()).nullable().meta({ description: 'null: every event.' }),
  description: z.string().nullable(),
  created_at: z.iso.datetime(),
  previous_secret_expires_at: z.iso.datetime().nullable(),
});
export type WebhookResponse = z.infer<typeof WebhookResponseSchema>;

export const WebhookListResponseSchema = listOf(WebhookResponseSchema);

export const WebhookCreatedSchema = WebhookResponseSchema.extend({
  secret: z.string().meta({
    description: 'whsec_…: shown once. Verify X-Webhook-Signature or the Standard Webhooks webhook-signature with it (docs/webhooks.md).',
  }),
});
export type WebhookCreatedResponse = z.infer<typeof WebhookCreatedSchema>;

export const WebhookDeletedSchema = z.object({ deleted: z.literal(true) });

export const DeliveryResponseSchema = z.object({
  delivery_id: z.string(),
  event_id: z.string(),
  event: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(
    z.object({
      attempt: z.number().int(),
      started_at: z.iso.datetime(),
      latency_ms: z.number().int(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
  ),
  created_at: z.iso.datetime(),
  delivered_at: z.iso.datetime().nullable(),
  failed_at: z.iso.datetime().nullable(),
});
export type DeliveryResponse = z.infer<typeof DeliveryResponseSchema>;

export const DeliveryListResponseSchema = listOf(DeliveryResponseSchema);
