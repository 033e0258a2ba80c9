import { z } from 'zod';
import { BULK_MAX_ITEMS } from '../../activities/bulk/bulk';
import { BULK_ITEM_STATUSES, BULK_STATUSES } from '../../db/models';
import { PrefillValuesSchema, SignerInputSchema } from '../documents/schema';
import { NameSchema } from '../shared/schema';

export const BulkItemSchema = z.strictObject({
  signers: z.array(SignerInputSchema).min(1).max(50).meta({ description: 'In signing order; signer n takes role n (as POST /documents).' }),
  name: NameSchema.optional().meta({ description: 'This document’s name (default: the bulk’s `name`).' }),
  strict_order: z.boolean().optional().meta({ description: 'Signers sign one after another, in the order given.' }),
  values: PrefillValuesSchema.optional(),
});

export const BulkCreateSchema = z.strictObject({
  template_id: z.string().min(1).max(100).meta({ description: 'A template of this account; every item’s document is made from it.' }),
  name: NameSchema.meta({ description: 'The name of each document (an item’s `name` overrides it) and of the bulk.' }),
  send: z.boolean().optional().meta({ description: 'Also send each document (as POST /documents/:id/send); default false: drafts.' }),
  items: z
    .array(BulkItemSchema)
    .min(1)
    .max(BULK_MAX_ITEMS)
    .meta({ description: `One document per item, at most ${BULK_MAX_ITEMS}; a malformed item refuses the whole request (400).` }),
});
export type BulkCreateReq = z.infer<typeof BulkCreateSchema>;

export const BulkQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(BULK_MAX_ITEMS).default(100).meta({ description: 'Items per page (1–500, default 100).' }),
  cursor: z.string().min(1).max(200).optional(),
});

const Counts = {
  total: z.number().int(),
  created: z.number().int().meta({ description: 'Items whose document was made (and sent, for a bulk with `send`).' }),
  failed: z.number().int().meta({ description: 'Items refused: see each item’s `error`.' }),
  pending: z.number().int().meta({ description: 'Items not made yet.' }),
};

export const BulkAcceptedSchema = z.object({
  bulk_id: z.string(),
  status: z.enum(BULK_STATUSES).meta({ description: '`running` until every item is made or refused, then `completed`.' }),
  ...Counts,
});
export type BulkAccepted = z.infer<typeof BulkAcceptedSchema>;

export const BulkItemResultSchema = z.object({
  index: z.number().int().meta({ description: 'The item’s position in `items` (from 0).' }),
  status: z.enum(BULK_ITEM_STATUSES),
  document_id: z.string().nullable(),
  error: z
    .object({ code: z.string(), message: z.string() })
    .nullable()
    .meta({ description: 'Why the item was refused (the code and words POST /documents would answer), else null.' }),
});

export const BulkResponseSchema = z.object({
  bulk_id: z.string(),
  name: z.string(),
  template_id: z.string(),
  send: z.boolean(),
  status: z.enum(BULK_STATUSES),
  ...Counts,
  created_at: z.iso.datetime(),
  completed_at: z.iso.datetime().nullable(),
  items: z.array(BulkItemResultSchema).meta({ description: 'A page of the items in order (`limit`, `cursor`).' }),
  next_cursor: z.string().nullable().meta({ description: 'The cursor of the next page of items, or null.' }),
});
export type BulkResponse = z.infer<typeof BulkResponseSchema>;
