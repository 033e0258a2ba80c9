import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { AUTO_FILLED, type Widget } from '../../lib/pdf/widgets';

/** What a sender may give a field by its name: text (or a number, written as given), a checkbox's tick, a dropdown's or radio group's option. */
export type PrefillValue = string | number | boolean;
/** A field's value by its name: locked as given, or `{value, editable: true}` for one its signer may change. */
export type PrefillValues = Record<string, PrefillValue | { value: PrefillValue; editable?: boolean }>;

/** The kinds whose prefilled value a signer may change (drawn as text: lib/pdf/editable.ts). */
const EDITABLE = new Set(['text', 'dropdown']);

/** The longest value a text field takes (the sign page's own limit). */
export const MAX_PREFILL_TEXT = 1000;

/**
 * The widgets with the sender's `values` set on them (each a locked prefill, stamped into the first
 * revision), every value checked against its field's type and options: a name no field has, an
 * auto-filled field, a wrong type or an option the dropdown lacks is a 400 naming the field.
 */
export function prefilledWidgets(widgets: Widget[], values: PrefillValues | undefined, at = 'values'): Widget[] {
  if (!values || Object.keys(values).length === 0) return widgets;
  const byId = new Map(widgets.map((widget) => [widget.id, widget]));
  const problems: Array<{ path: string; message: string }> = [];
  const prefill = new Map<string, NonNullable<Widget['prefill']>>();
  for (const [name, entry] of Object.entries(values)) {
    const widget = byId.get(name);
    const [given, editable] = typeof entry === 'object' && entry !== null ? [entry.value, entry.editable === true] : [entry, false];
    const wrong = !widget
      ? t('errors.prefill.no_such_field', { fields: fillable(widgets) })
      : (problemOf(widget, given) ??
        (editable && !EDITABLE.has(widget.type) ? t('errors.prefill.not_editable', { type: widget.type }) : undefined));
    if (wrong) problems.push({ path: `${at}.${name}`, message: wrong });
    else prefill.set(name, { value: typeof given === 'number' ? String(given) : given, ...(editable ? { editable: true as const } : {}) });
  }
  if (problems.length > 0) {
    const fields = problems.map((problem) => problem.path.slice(at.length + 1)).join(', ');
    throw errors.invalidRequest(t('errors.prefill.refused', { fields }), problems);
  }
  return widgets.map((widget) => (prefill.has(widget.id) ? { ...widget, prefill: prefill.get(widget.id)! } : widget));
}

/** The names a sender may fill, for the refusal of one that is not among them. */
function fillable(widgets: Widget[]): string {
  const names = widgets.filter((widget) => !AUTO_FILLED.has(widget.type)).map((widget) => widget.id);
  return names.length > 0 ? names.join(', ') : '-';
}

function problemOf(widget: Widget, given: PrefillValue): string | undefined {
  if (AUTO_FILLED.has(widget.type)) return t('errors.prefill.auto_filled', { type: widget.type });
  switch (widget.type) {
    case 'checkbox':
      return typeof given === 'boolean' ? undefined : t('errors.prefill.checkbox');
    case 'dropdown':
    case 'radio':
      if (typeof given !== 'string' || (widget.options && !widget.options.includes(given)))
        return widget.type === 'radio'
          ? t('errors.prefill.radio', { options: (widget.options ?? []).join(', ') })
          : t('errors.prefill.dropdown', { options: (widget.options ?? []).join(', ') });
      return given.trim() === '' ? t('errors.prefill.blank') : undefined;
    default: {
      if (typeof given === 'number') return Number.isFinite(given) ? undefined : t('errors.prefill.text');
      if (typeof given !== 'string') return t('errors.prefill.text');
      if (given.trim() === '') return t('errors.prefill.blank');
      return given.length > MAX_PREFILL_TEXT ? t('errors.prefill.too_long', { max: MAX_PREFILL_TEXT }) : undefined;
    }
  }
}
