import { z } from 'zod';
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
});
export type TemplateResponse = z.infer<typeof TemplateResponseSchema>;

export const TemplateListResponseSchema = listOf(TemplateResponseSchema);
