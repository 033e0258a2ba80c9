import { z } from 'zod';
import { WIDGET_TYPES } from '../../lib/pdf/widgets';

/** A widget as templates take it (JSON file, app editor): PDF points, origin top-left, page 1-based. */
export const WidgetSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (1 to 64)'),
    type: z.enum(WIDGET_TYPES),
    role: z.string().trim().min(1).max(100),
    page: z.number().int().min(1),
    x: z.number().min(0),
    y: z.number().min(0),
    width: z.number().positive().max(5000),
    height: z.number().positive().max(5000),
    required: z.boolean().default(true),
    label: z.string().trim().max(200).optional(),
    options: z.array(z.string().trim().min(1).max(200)).min(1).max(100).optional(),
  })
  .superRefine((widget, ctx) => {
    const choosing = widget.type === 'dropdown' || widget.type === 'radio';
    if (choosing && !widget.options) ctx.addIssue({ code: 'custom', path: ['options'], message: `a ${widget.type} needs options` });
    if (widget.type === 'radio' && widget.options && widget.options.length < 2)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'a radio group needs two options or more' });
    if (choosing && widget.options && new Set(widget.options).size !== widget.options.length)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'each option once' });
    if (!choosing && widget.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'only a dropdown or a radio group takes options' });
  });

export const TemplateDefinitionSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  /** Signer roles in signing order; defaults to the roles of the widgets in order of appearance. */
  roles: z.array(z.string().trim().min(1).max(100)).min(1).max(20).optional(),
  widgets: z.array(WidgetSchema).min(1).max(2000),
});
export type TemplateDefinition = z.input<typeof TemplateDefinitionSchema>;
