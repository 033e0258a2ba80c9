import { z } from 'zod';
import { MAX_PREFILL_TEXT } from '../../activities/documents/prefill';
import { VOID_REASON_MAX } from '../../activities/documents/void';
import { WidgetSchema } from '../../activities/templates/schema';
import { DOCUMENT_STATUSES, SIGNER_STATUSES } from '../../db/models';
import { DURATION_PATTERN } from '../../lib/durations';
import { EmailSchema, listOf, NameSchema, SignerNameSchema } from '../shared/schema';

/** The most scheduled reminders one document takes. */
const MAX_REMINDERS = 20;

/** An ISO 8601 duration of weeks, days, hours, minutes and seconds (PT30S, P2D); its bounds are the deployment's. */
const IsoDurationSchema = z
  .string()
  .max(40)
  .regex(new RegExp(DURATION_PATTERN), 'an ISO 8601 duration of weeks, days, hours, minutes, seconds (PT30S, P2D)');

export const DocumentRemindersSchema = z.strictObject({
  first_after: IsoDurationSchema.meta({ description: 'The first reminder this long after the send (ISO 8601 duration, e.g. P2D).' }),
  every: IsoDurationSchema.optional().meta({ description: 'Then one every this long (default: first_after).' }),
  max: z
    .number()
    .int()
    .min(1)
    .max(MAX_REMINDERS)
    .optional()
    .meta({ description: `Reminders in all (1–${MAX_REMINDERS}, default 1).` }),
});

export const SignerInputSchema = z.strictObject({ name: SignerNameSchema, email: EmailSchema });

/** A field's value: text (or a number), a checkbox's tick, an option. */
const PrefillValueSchema = z.union([z.string().max(MAX_PREFILL_TEXT), z.number(), z.boolean()]);

/** Fields filled by their name (a template widget's `id`): stamped into the PDF before any signer sees it, locked or editable. */
export const PrefillValuesSchema = z
  .record(
    z.string().min(1).max(100),
    z.union([PrefillValueSchema, z.strictObject({ value: PrefillValueSchema, editable: z.boolean().optional() })]),
  )
  .refine((values) => Object.keys(values).length <= 500, { message: 'at most 500 values' })
  .meta({
    description:
      'Fields filled by name (GET /templates/:id lists each field’s `id`, type, role and options): a string or number for a text field, true or false for a checkbox, one of the options for a dropdown. Each value is stamped into the document before it is sent, so `pre_sign_hash` binds it; given as a value it is locked (no signer changes it), as `{"value": …, "editable": true}` (text and dropdown fields) its signer may change it at the sign link, and the change is in the audit trail. A name no field has, an auto-filled field (signature, initials, date, name, email) or a value that does not suit its field is a 400 naming it.',
  });

export const DocumentCreateSchema = z
  .strictObject({
    template_id: z.string().min(1).max(100).optional().meta({ description: 'A template of this account (or `drive_file_id`).' }),
    drive_file_id: z.string().min(1).max(100).optional().meta({
      description:
        'Instead of a template: a PDF in this principal’s Drive (POST /assets), with `widgets`. Needs the `agent_editor` flag (else 403 feature_disabled).',
    }),
    widgets: z
      .array(WidgetSchema)
      .min(1)
      .max(2000)
      .optional()
      .meta({ description: 'With `drive_file_id`: the fields to fill and sign, per signer role (as a template’s widgets).' }),
    roles: z
      .array(z.string().trim().min(1).max(100))
      .min(1)
      .max(20)
      .optional()
      .meta({ description: 'With `drive_file_id`: the roles in signing order (default: the widgets’ roles in order of appearance).' }),
    name: NameSchema,
    signers: z.array(SignerInputSchema).min(1).max(50).meta({ description: 'In signing order; signer n takes role n.' }),
    values: PrefillValuesSchema.optional(),
    send: z.boolean().optional().meta({ description: 'Also send at once (as POST /documents/:id/send).' }),
    strict_order: z.boolean().optional().meta({ description: 'Signers sign one after another, in the order given.' }),
    expires_at: z.iso.datetime({ offset: true }).optional().meta({
      description:
        'When the document expires unsigned (ISO 8601, UTC or with an offset; in the future, within the deployment’s bounds): it becomes `expired`, its sign links and open L1 requests stop, offers on it expire (event `document.expired`).',
    }),
    reminders: DocumentRemindersSchema.optional().meta({
      description:
        'Re-mail the pending signers (under strict order only the one whose turn it is) after `first_after`, then every `every`, `max` times in all (event `document.reminded` per signer mailed).',
    }),
  })
  // The same rule for OpenAPI readers: a template, or a Drive PDF with its widgets, never both.
  .meta({
    oneOf: [
      { required: ['template_id'], not: { anyOf: [{ required: ['drive_file_id'] }, { required: ['widgets'] }, { required: ['roles'] }] } },
      { required: ['drive_file_id', 'widgets'], not: { required: ['template_id'] } },
    ],
  })
  .superRefine(
    (body, ctx) => {
      if (!body || typeof body !== 'object') return;
      if (Boolean(body.template_id) === Boolean(body.drive_file_id))
        ctx.addIssue({ code: 'custom', path: ['template_id'], message: 'give either template_id or drive_file_id' });
      if (body.drive_file_id && !body.widgets) ctx.addIssue({ code: 'custom', path: ['widgets'], message: 'required with drive_file_id' });
      if (body.template_id && (body.widgets || body.roles))
        ctx.addIssue({ code: 'custom', path: [body.widgets ? 'widgets' : 'roles'], message: 'only with drive_file_id' });
    },
    // Also when another field is wrong, so a body missing both template_id and drive_file_id says so at once.
    { when: () => true },
  );
export type DocumentCreateReq = z.infer<typeof DocumentCreateSchema>;

export const DocumentSignersAddSchema = z.strictObject({ signers: z.array(SignerInputSchema).min(1).max(50) });
export type DocumentSignersAddReq = z.infer<typeof DocumentSignersAddSchema>;

export const DocumentVoidSchema = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(VOID_REASON_MAX)
    .meta({ description: 'Why it is voided: mailed to the pending signers and shown on their sign links.' }),
});
export type DocumentVoidReq = z.infer<typeof DocumentVoidSchema>;

export const DocumentRemindResponseSchema = z.object({
  document_id: z.string(),
  reminded: z
    .array(z.object({ signer_id: z.string(), name: z.string(), email: z.string() }))
    .meta({ description: 'The signers mailed now: every pending one, or under strict order the one whose turn it is.' }),
});
export type DocumentRemindResponse = z.infer<typeof DocumentRemindResponseSchema>;

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
  status: z.enum(SIGNER_STATUSES),
  signed_at: Time,
  sign_url: z.string().optional().meta({ description: 'The signer’s personal link; shown to the sending account only.' }),
  signed_as: z.object({ name: z.string(), email: z.string() }).nullable().meta({
    description:
      'Who signed, as stamped and certified: for a principal, their registered name and e-mail. `name` above is only the label the sender gave.',
  }),
  apply: z
    .object({
      apply_id: z.string(),
      status: z.enum(['processing', 'applied', 'rejected']),
      error: z.object({ code: z.string(), message: z.string() }).nullable(),
      updated_at: z.iso.datetime(),
    })
    .nullable()
    .meta({
      description:
        'The signer’s latest signature apply: `processing` while it is being stamped and sealed (after a 202), `applied`, or `rejected` with the error code and message (also sent as the event `document.sign_failed`); the signer can sign again after a rejection. null before any.',
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
  status: z.enum(DOCUMENT_STATUSES),
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
  expires_at: Time.meta({ description: 'When the document expires unsigned; null: never.' }),
  reminders: z
    .object({ first_after: z.string(), every: z.string(), max: z.number().int() })
    .nullable()
    .meta({ description: 'The reminder schedule the sender gave; null: none.' }),
  expired_at: Time,
  voided_at: Time,
  void_reason: z.string().nullable().meta({ description: 'Why the sender voided it (shown on the sign links too).' }),
  receipt_jws: z
    .string()
    .nullable()
    .meta({ description: 'Once completed: the dual-attestation receipt as a compact JWS, verifiable against GET /.well-known/jwks.json' }),
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
