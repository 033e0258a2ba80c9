export const WIDGET_TYPES = ['signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox', 'dropdown'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** A field on a page. Coordinates are PDF points, origin at the TOP-LEFT of the page (y grows downwards), page is 1-based. */
export interface Widget {
  id: string;
  type: WidgetType;
  role: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label?: string;
  options?: string[];
}

/** Widget types the stored appearance / signer identity fills by itself (SPEC: auto-filled types). */
export const AUTO_FILLED: ReadonlySet<WidgetType> = new Set<WidgetType>(['signature', 'initials', 'date', 'name', 'email']);

/**
 * The required widgets that `values` leaves unfilled (SPEC: `unfilled_fields`): a text without a
 * non-blank string, a checkbox not ticked, a dropdown without one of its options.
 */
export function unfilledWidgets(widgets: Widget[], values: Record<string, string | boolean>): Widget[] {
  return widgets.filter((widget) => widget.required && !AUTO_FILLED.has(widget.type) && !isFilled(widget, values[widget.id]));
}

function isFilled(widget: Widget, value: string | boolean | undefined): boolean {
  switch (widget.type) {
    case 'checkbox':
      return value === true;
    case 'dropdown':
      return typeof value === 'string' && (widget.options ? widget.options.includes(value) : value.trim() !== '');
    default:
      return typeof value === 'string' && value.trim() !== '';
  }
}
