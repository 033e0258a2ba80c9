import { z } from 'zod';
import { EmailSchema, listOf, NameSchema } from '../shared/schema';

export const SignerInputSchema = z.strictObject({ name: NameSchema, email: EmailSchema });

export const DocumentCreateSchema = z.strictObject({
  template_id: z.string().min(1).max(100),
  name: NameSchema,
  signers: z.array(SignerInputSchema).min(1).max(50).meta({ description: 'In signing order; signer n takes the template’s role n.' }),
  send: z.boolean().optional().meta({ description: 'Also send at once (as POST /documents/:id/send).' }),
  strict_order: z.boolean().optional().meta({ description: 'Signers sign one after another, in the order given.' }),
});
export type DocumentCreateReq = z.infer<typeof DocumentCreateSchema>;

export const DocumentSignersAddSchema = z.strictObject({ signers: z.array(SignerInputSchema).min(1).max(50) });
export type DocumentSignersAddReq = z.infer<typeof DocumentSignersAddSchema>;

export const DocumentListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
  direction: z.enum(['outbound', 'inbound']).default('outbound').meta({
    description: '`outbound`: this account’s documents; `inbound`: documents sent to this key’s principal as a signer.',
  }),
});

const Time = z.iso.datetime().nullable();

export const NextActionSchema = z.object({
  action: z.string(),
  method: z.enum(['GET', 'POST']),
  path: z.string(),
  body: z.record(z.string(), z.unknown()).optional(),
  description: z.string(),
});

export const DocumentSignerSchema = z.object({
  signer_id: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
  status: z.enum(['pending', 'signed', 'declined']),
  signed_at: Time,
  sign_url: z.string().optional().meta({ description: 'The signer’s personal link; shown to the sending account only.' }),
  signed_as: z.object({ name: z.string(), email: z.string() }).nullable().meta({
    description:
      'Who signed, as stamped and certified: for a principal, their registered name and e-mail. `name` above is only the label the sender gave.',
  }),
  invitation: z
    .object({ status: z.enum(['queued', 'stored', 'sent', 'failed']), error: z.string().nullable() })
    .nullable()
    .optional()
    .meta({
      description:
        'The sign-link e-mail to this signer (sending account only): null until it is queued; `failed` with the reason when it could not be delivered.',
    }),
});

export const DocumentResponseSchema = z.object({
  document_id: z.string(),
  name: z.string(),
  status: z.enum(['draft', 'sent', 'completed', 'declined', 'voided']),
  direction: z.enum(['outbound', 'inbound']),
  template_id: z.string().nullable(),
  strict_order: z.boolean(),
  page_count: z.number().int(),
  original_sha256: z.string(),
  document_hash: z.string().meta({ description: 'SHA-256 of the current sealed PDF.' }),
  created_at: z.iso.datetime(),
  sent_at: Time,
  completed_at: Time,
  declined_at: Time,
  signers: z.array(DocumentSignerSchema),
  next_actions: z.array(NextActionSchema),
});
export type DocumentResponse = z.infer<typeof DocumentResponseSchema>;

export const DocumentListResponseSchema = listOf(DocumentResponseSchema);

export const DownloadResponseSchema = z.object({
  url: z.string().meta({ description: 'Serves the current sealed PDF until expires_at; no key needed.' }),
  expires_at: z.iso.datetime(),
  sha256: z.string(),
});
export type DownloadResponse = z.infer<typeof DownloadResponseSchema>;
