import { z } from 'zod';
import { CONTACT_STATUSES } from '../../db/models';
import { EmailSchema, listOf, NameSchema } from '../shared/schema';

const InboxUrlSchema = z
  .url({ protocol: /^https$/ })
  .max(2000)
  .meta({ description: 'https URL that receives this relationship’s contact and offer events, signed like a webhook' });

export const ContactCreateSchema = z.strictObject({
  email: EmailSchema,
  name: NameSchema,
  inbox_url: InboxUrlSchema.optional(),
});
export type ContactCreateReq = z.infer<typeof ContactCreateSchema>;

/** Accepting may set this side's inbox_url (its secret is shown once in the answer). */
export const ContactAcceptSchema = z.strictObject({ inbox_url: InboxUrlSchema.optional() });
export const ContactAcceptByTokenSchema = z.strictObject({ token: z.string().min(1).max(300), inbox_url: InboxUrlSchema.optional() });

export const ContactResponseSchema = z.object({
  contact_id: z.string(),
  pair_id: z.uuid().meta({ description: 'Shared by both sides of the relationship' }),
  direction: z.enum(['outbound', 'inbound']).meta({ description: '`outbound`: this principal invited; `inbound`: was invited' }),
  counterparty_email: z.string(),
  counterparty_name: z.string(),
  status: z.enum(CONTACT_STATUSES),
  accept_url: z
    .string()
    .nullable()
    .meta({ description: '`{app_url}/agent-contacts?accept=<token>` while invited; the invitee accepts it' }),
  inbox_url: z.string().nullable(),
  invitation: z
    .object({ status: z.string(), error: z.string().nullable() })
    .nullable()
    .meta({ description: 'The invitation mail, on the inviter’s side' }),
  created_at: z.iso.datetime(),
  accepted_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
  revoked_by: z.enum(['self', 'counterparty']).nullable(),
});
export type ContactResponse = z.infer<typeof ContactResponseSchema>;

export const ContactWithSecretSchema = ContactResponseSchema.extend({
  inbox_secret: z.string().optional().meta({ description: 'The inbox_url’s signing secret (`whsec_…`), shown only here, once' }),
});
export const ContactListResponseSchema = listOf(ContactResponseSchema);
