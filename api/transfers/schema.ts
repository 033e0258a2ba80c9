import { z } from 'zod';
import { TRANSFER_STATUSES } from '../../db/models';
import { EmailSchema, ListQuerySchema, listOf, NameSchema } from '../shared/schema';

export const TransferCreateSchema = z.strictObject({
  name: NameSchema,
  drive_file_ids: z.array(z.string().min(1).max(100)).min(1).max(100),
  recipients: z
    .array(z.strictObject({ email: EmailSchema, name: NameSchema }))
    .min(1)
    .max(50),
  document_id: z.string().min(1).max(100).optional().meta({ description: 'Sign-to-unlock: the files unlock when this document completes' }),
  requires_acceptance: z
    .boolean()
    .optional()
    .meta({ description: 'Accept-to-unlock (without document_id): the files unlock when every recipient accepts' }),
});
export type TransferCreateReq = z.infer<typeof TransferCreateSchema>;

export const TransferListQuerySchema = ListQuerySchema.extend({
  direction: z.enum(['sent', 'received']).optional().meta({ description: 'Packages this principal sent, or received' }),
});

const Time = z.iso.datetime().nullable();
const MODES = z.enum(['share', 'sign', 'accept']).meta({ description: '`share`, `sign` (sign-to-unlock) or `accept` (accept-to-unlock)' });
const STATUSES = z.enum(TRANSFER_STATUSES);
const Party = z.object({ email: z.string(), name: z.string() });

export const TransferFileSchema = z.object({
  drive_file_id: z.string(),
  name: z.string(),
  kind: z.string(),
  size: z.number().int(),
  sha256: z.string(),
});

export const RecipientSchema = z.object({
  recipient_id: z.string(),
  email: z.string(),
  name: z.string(),
  accepted: z.boolean(),
  accepted_at: Time,
  claimed: z.boolean(),
  bound: z.boolean().meta({ description: 'Bound to the principal of that e-mail (by a claim with their key or their app session)' }),
});

export const TransferResponseSchema = z.object({
  transfer_id: z.string(),
  name: z.string(),
  mode: MODES,
  status: STATUSES,
  can_release: z.boolean().meta({ description: 'The files may be downloaded' }),
  direction: z.enum(['sent', 'received']),
  document_id: z.string().nullable(),
  requires_acceptance: z.boolean(),
  blocked_reason: z
    .string()
    .nullable()
    .meta({ description: 'Why a sign-to-unlock package will never release (its document was declined)' }),
  from: Party,
  files: z.array(TransferFileSchema),
  recipients: z.array(RecipientSchema),
  created_at: z.iso.datetime(),
  offered_at: Time,
  released_at: Time,
  cancelled_at: Time,
});
export type TransferResponse = z.infer<typeof TransferResponseSchema>;
export const TransferListResponseSchema = listOf(TransferResponseSchema);

export const OfferedTransferSchema = TransferResponseSchema.extend({
  recipients: z.array(
    RecipientSchema.extend({
      claim_url: z.string().meta({ description: '`{app_url}/claim/<token>`: the recipient’s claim page (also e-mailed)' }),
      token: z.string().meta({ description: 'The raw claim token (`svcxfer_…`), shown only here, once' }),
    }),
  ),
});

/** What a claim token shows to anyone holding it: never a file URL. */
export const PublicTransferSchema = z.object({
  transfer_id: z.string(),
  name: z.string(),
  mode: MODES,
  status: STATUSES,
  can_release: z.boolean(),
  blocked_reason: z.string().nullable(),
  from: Party,
  document: z.object({ document_id: z.string(), name: z.string(), status: z.string() }).nullable(),
  files: z.array(TransferFileSchema.omit({ drive_file_id: true })),
  recipient: z.object({ email: z.string(), name: z.string(), accepted: z.boolean(), bound: z.boolean() }),
  recipients_accepted: z.number().int(),
  recipients_total: z.number().int(),
});
export type PublicTransferResponse = z.infer<typeof PublicTransferSchema>;

export const ClaimResponseSchema = z.object({
  bound: z.boolean().meta({
    description:
      'true: bound to this key’s principal (its e-mail is the recipient’s); false: a guest capability (the token downloads after release)',
  }),
  transfer: PublicTransferSchema,
});

export const DownloadsResponseSchema = z.object({
  transfer_id: z.string(),
  files: z.array(
    TransferFileSchema.extend({
      media_type: z.string(),
      url: z.string().meta({ description: 'Streams the file (with X-Content-SHA256 and Range) until expires_at; no key needed' }),
      expires_at: z.iso.datetime(),
    }),
  ),
});
