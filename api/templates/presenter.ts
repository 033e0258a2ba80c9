import type { Template } from '../../db/models';
import type { Widget } from '../../lib/pdf/widgets';
import type { TemplateResponse, WidgetResponse } from './schema';

function presentWidget(widget: Widget): WidgetResponse {
  return {
    id: widget.id,
    type: widget.type,
    role: widget.role,
    page: widget.page,
    x: widget.x,
    y: widget.y,
    width: widget.width,
    height: widget.height,
    required: widget.required,
    ...(widget.label !== undefined ? { label: widget.label } : {}),
    ...(widget.options !== undefined ? { options: [...widget.options] } : {}),
  };
}

export function presentTemplate(template: Template): TemplateResponse {
  return {
    template_id: template.id,
    name: template.name,
    page_count: template.page_count,
    roles: [...template.roles],
    widgets: template.widgets.map(presentWidget),
    pdf_sha256: template.pdf_sha256,
    created_at: template.created_at.toISOString(),
    updated_at: template.updated_at?.toISOString() ?? null,
    deleted_at: template.deleted_at?.toISOString() ?? null,
  };
}
