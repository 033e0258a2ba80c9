import { z } from 'zod';
import { TemplateDefinitionSchema } from '../../activities/templates/schema';
import { WIDGET_TYPES } from '../../lib/pdf/widgets';
import { listOf } from '../shared/schema';

export const WidgetResponseSchema = z.object({
  id: z.string(),
  type: z.enum(WIDGET_TYPES),
  role: z.string(),
  page: z.number().int().meta({ description: '1-based' }),
  x: z.number().meta({ description: 'PDF points from the left edge' }),
  y: z.number().meta({ description: 'PDF points from the top edge' }),
  width: z.number(),
  height: z.number(),
  required: z.boolean(),
  label: z.string().optional(),
  options: z.array(z.string()).optional(),
});
export type WidgetResponse = z.infer<typeof WidgetResponseSchema>;

export const TemplateResponseSchema = z.object({
  template_id: z.string(),
  name: z.string(),
  page_count: z.number().int(),
  roles: z.array(z.string()).meta({ description: 'Signer roles in signing order; signer n of a document takes role n.' }),
  widgets: z.array(WidgetResponseSchema),
  pdf_sha256: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime().nullable(),
  deleted_at: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'Set once deleted: no longer listed or usable for new documents; its documents keep working.' }),
});
export type TemplateResponse = z.infer<typeof TemplateResponseSchema>;

export const TemplateListResponseSchema = listOf(TemplateResponseSchema);

export const TemplateCreateSchema = TemplateDefinitionSchema.extend({
  drive_file_id: z
    .string()
    .min(1)
    .max(100)
    .meta({ description: 'A PDF in this key’s principal’s Drive (upload it with POST /assets); taken in through the safe PDF intake.' }),
  widgets: TemplateDefinitionSchema.shape.widgets.meta({
    description: 'The fields each signer role fills: PDF points from the page’s top-left corner, pages from 1, inside the page.',
  }),
});
export type TemplateCreateReq = z.infer<typeof TemplateCreateSchema>;

export const TemplateUpdateSchema = z
  .strictObject({
    name: TemplateDefinitionSchema.shape.name.optional(),
    roles: TemplateDefinitionSchema.shape.roles.meta({
      description:
        'Signer roles in signing order. Not given: the current roles, or with new widgets of other roles, the widgets’ roles in order of appearance.',
    }),
    widgets: TemplateDefinitionSchema.shape.widgets.optional().meta({ description: 'Replaces every widget.' }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'give name, roles or widgets' });
export type TemplateUpdateReq = z.infer<typeof TemplateUpdateSchema>;
