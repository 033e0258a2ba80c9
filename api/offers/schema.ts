import { z } from 'zod';
import { OFFER_STATUSES } from '../../db/models';
import { ListQuerySchema, listOf } from '../shared/schema';

export const OfferCreateSchema = z.strictObject({
  contact_id: z.string().min(1).max(100),
  terms: z.string().trim().min(1).max(10_000),
  human_signature_required: z
    .boolean()
    .optional()
    .meta({ description: 'When true, acceptance always needs the principal’s confirmation in the app (L1). Default false.' }),
});
export type OfferCreateReq = z.infer<typeof OfferCreateSchema>;

export const OfferListQuerySchema = ListQuerySchema.extend({
  direction: z.enum(['inbound', 'outbound']).optional().meta({ description: 'Offers made to (inbound) or by (outbound) this principal' }),
  status: z.enum(OFFER_STATUSES).optional(),
});

export const OfferResponseSchema = z.object({
  offer_id: z.string(),
  direction: z.enum(['inbound', 'outbound']).meta({ description: 'As this key’s principal sees it' }),
  contact_id: z.string().meta({ description: 'This principal’s side of the contact' }),
  document_id: z.string(),
  document_name: z.string(),
  from_email: z.string(),
  to_email: z.string(),
  terms: z.string(),
  pre_sign_hash: z.string().meta({ description: 'SHA-256 (hex) of the document’s PDF when the offer was made' }),
  human_signature_required: z.boolean(),
  expires_at: z.iso.datetime(),
  status: z.enum(OFFER_STATUSES),
  processing: z.boolean().meta({ description: 'An accept’s signature is being applied right now' }),
  confirm_url: z.string().nullable().meta({ description: 'While escalated: the principal confirms here, signed in to the app' }),
  sign_request_id: z.string().nullable(),
  mandate_id: z.string().nullable(),
  confirmation_level: z.enum(['l1', 'l2']).nullable(),
  document_hash: z.string().nullable().meta({ description: 'SHA-256 of the PDF the acceptance produced' }),
  final_sha256: z.string().nullable(),
  receipt_jws: z
    .string()
    .nullable()
    .meta({ description: 'The receipt as a compact JWS (ES256), verifiable against GET /.well-known/jwks.json' }),
  error: z
    .object({ code: z.string(), message: z.string().nullable() })
    .nullable()
    .meta({ description: 'Why the last accept or confirmation did not sign' }),
  created_at: z.iso.datetime(),
  acknowledged_at: z.iso.datetime().nullable(),
  escalated_at: z.iso.datetime().nullable(),
  accepted_at: z.iso.datetime().nullable(),
  declined_at: z.iso.datetime().nullable(),
  expired_at: z.iso.datetime().nullable(),
});
export type OfferResponse = z.infer<typeof OfferResponseSchema>;
export const OfferListResponseSchema = listOf(OfferResponseSchema);
