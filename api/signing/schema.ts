import { z } from 'zod';
import { PUBLIC_SIGN_REQUEST_STATUSES } from '../../db/models';
import { listOf } from '../shared/schema';

export const SignResultSchema = z.object({
  status: z.enum(['applied', 'processing']).meta({ description: '`processing` (202): still being applied; poll GET /v1/documents/:id.' }),
  document_id: z.string(),
  mandate_id: z.string(),
  confirmation_level: z.literal('L2'),
  pre_sign_hash: z.string().nullable(),
  document_hash: z.string().nullable(),
  document_status: z.string(),
});
export type SignResult = z.infer<typeof SignResultSchema>;

export const SignRequestResponseSchema = z.object({
  sign_request_id: z.string(),
  document_id: z.string(),
  mandate_id: z.string(),
  status: z.enum(PUBLIC_SIGN_REQUEST_STATUSES),
  reason: z.string(),
  confirm_url: z.string().meta({ description: 'Opens in the app; only the principal, signed in, can confirm. Also e-mailed to them.' }),
  expires_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
  decided_at: z.iso.datetime().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable().meta({ description: 'Why a confirmed request failed to apply.' }),
  mail: z
    .object({ status: z.enum(['queued', 'stored', 'sent', 'failed']), error: z.string().nullable() })
    .nullable()
    .meta({
      description:
        'The confirm e-mail to the principal: null until it is queued; `failed` with the reason when it could not be delivered (the confirm_url still works).',
    }),
});

export type SignRequestResponse = z.infer<typeof SignRequestResponseSchema>;

export const SignRequestListResponseSchema = listOf(SignRequestResponseSchema);
