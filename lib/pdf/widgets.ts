import { WIDGET_TYPES, type Widget, type WidgetType } from '../../db/models/widget';

export { WIDGET_TYPES, type Widget, type WidgetType };

/** Widget types the stored appearance / signer identity fills by itself (SPEC: auto-filled types). */
export const AUTO_FILLED: ReadonlySet<WidgetType> = new Set<WidgetType>(['signature', 'initials', 'date', 'name', 'email']);

/**
 * The required widgets that `values` leaves unfilled (SPEC: `unfilled_fields`): a text without a
 * non-blank string, a checkbox not ticked, a dropdown or radio group without one of its options.
 */
export function unfilledWidgets(widgets: Widget[], values: Record<string, string | boolean>): Widget[] {
  // An editable prefilled value stands unless the signer gives another.
  return widgets.filter(
    (widget) => widget.required && !AUTO_FILLED.has(widget.type) && !isFilled(widget, values[widget.id] ?? widget.prefill?.value),
  );
}

/** Whether a prefilled value is the signer's to change (else it is locked: in the PDF and no signer's field). */
export const lockedPrefill = (widget: Widget): boolean => Boolean(widget.prefill && !widget.prefill.editable);

function isFilled(widget: Widget, value: string | boolean | undefined): boolean {
  switch (widget.type) {
    case 'checkbox':
      return value === true;
    case 'dropdown':
    case 'radio':
      return typeof value === 'string' && (widget.options ? widget.options.includes(value) : value.trim() !== '');
    default:
      return typeof value === 'string' && value.trim() !== '';
  }
}
