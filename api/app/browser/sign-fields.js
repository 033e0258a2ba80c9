// The signer's fields over the PDF: editable ones (text, checkbox, dropdown, radio group, signature, initials)
// for this signer, read-only labels for everyone else's, and moving between them.

import { h } from './dom.js';
import { t } from './messages.js';
import { answered, changed, fillsIn, labelOf, S, showError, ui } from './sign-context.js';
import { openSignatureDialog } from './sign-dialogs.js';
import { readableZoom, setZoom } from './sign-zoom.js';

/** @typedef {import('./sign-context.js').SignStateWidget} SignStateWidget */

/**
 * One widget over its page, placed in percentages of the page so it follows any width.
 * @param {SignStateWidget} widget
 * @param {number} pageWidth
 * @param {number} pageHeight
 */
export function widgetElement(widget, pageWidth, pageHeight) {
  const { state } = S;
  const owner = state.signers.find((signer) => signer.role === widget.role);
  // Once a role has signed, its marks are in the PDF itself; an overlay would only hide them.
  if (owner?.status === 'signed') return null;
  const editable = widget.mine && state.can_sign;
  const el = editable ? editableWidget(widget) : readOnlyWidget(widget);
  el.classList.add('widget', `widget-${widget.type}`, widget.mine ? 'mine' : 'theirs');
  if (widget.required) el.classList.add('required');
  el.style.left = `${(widget.x / pageWidth) * 100}%`;
  el.style.top = `${(widget.y / pageHeight) * 100}%`;
  el.style.width = `${(widget.width / pageWidth) * 100}%`;
  el.style.height = `${(widget.height / pageHeight) * 100}%`;
  // Another signer's box only names its owner: small print, so it fits a box of any size.
  // A radio group's text fits one option's row of the box.
  const rowHeight = widget.type === 'radio' ? widget.height / Math.max(1, widget.options?.length ?? 1) : widget.height;
  const points = widget.mine ? Math.min(rowHeight * 0.55, 14) : Math.min(rowHeight * 0.4, 8);
  // In points; sign.css turns them into pixels at the page's scale (and, on a phone, grows the
  // signer's own fields to a 44 px tap target with 16 px text, centred on their box).
  el.style.setProperty('--pt', Math.max(5, points).toFixed(1));
  el.style.setProperty('--w', String(widget.width));
  el.style.setProperty('--h', String(widget.height));
  el.style.setProperty('--n', String(widget.options?.length ?? 1));
  if (editable && el.matches('input, select, button, label, [role="radiogroup"]')) el.classList.add('editable');
  return el;
}

/** @param {SignStateWidget} widget */
function readOnlyWidget(widget) {
  // The server says what it stamps on the signer's own name, e-mail, date and initials.
  const label = labelOf(widget);
  const text =
    widget.mine && widget.text ? widget.text : widget.mine ? label : t('browser.sign.field.theirs', { label, role: widget.role });
  const title = widget.mine ? label : t('browser.sign.field.theirs_title', { label, role: widget.role });
  return h('div', { testid: `widget-${widget.id}`, title }, text);
}

/** @param {SignStateWidget} widget */
function editableWidget(widget) {
  const label = labelOf(widget);
  const remember = (/** @type {string | boolean | undefined} */ value) => {
    if (value === undefined) delete S.values[widget.id];
    else S.values[widget.id] = value;
    ui.widgets[widget.id]?.removeAttribute('aria-invalid');
    changed();
  };
  /** @type {any} the field's control: a button, an input, a select (any: each case uses what its element has) */
  let control;
  /** @type {HTMLElement | undefined} */
  let box;
  switch (widget.type) {
    case 'signature':
    case 'initials':
      control = h('button', {
        type: 'button',
        'aria-label': t(widget.type === 'signature' ? 'browser.sign.field.signature' : 'browser.sign.field.initials', { label }),
        onclick: () => openSignatureDialog(/** @type {'signature' | 'initials'} */ (widget.type)),
      });
      break;
    case 'text':
      control = h('input', {
        type: 'text',
        maxlength: '1000',
        'aria-label': label,
        required: widget.required,
        placeholder: label,
        oninput: () => remember(control.value.trim() || undefined),
      });
      // A value the sender prefilled for the signer to keep or change.
      control.value = /** @type {string} */ (S.values[widget.id] ?? widget.prefill?.value ?? '');
      break;
    case 'checkbox':
      control = h('input', {
        type: 'checkbox',
        'aria-label': label,
        required: widget.required,
        onchange: () => remember(control.checked || undefined),
      });
      control.checked = S.values[widget.id] === true;
      // The label widens the tap target of a checkbox only a few points wide.
      box = h('label', null, control);
      break;
    case 'dropdown':
      control = h(
        'select',
        { 'aria-label': label, required: widget.required, onchange: () => remember(control.value || undefined) },
        h('option', { value: '' }, t('browser.sign.field.choose', { label })),
        (widget.options ?? []).map((option) => h('option', { value: option }, option)),
      );
      control.value = /** @type {string} */ (S.values[widget.id] ?? widget.prefill?.value ?? '');
      break;
    case 'radio': {
      // One choice of its options: each a label the signer taps (the whole row is the target).
      const choices = (widget.options ?? []).map((option, index) => {
        const input = h('input', {
          type: 'radio',
          name: `radio-${widget.id}`,
          value: option,
          required: widget.required,
          testid: `widget-${widget.id}-option-${index}`,
          onchange: () => remember(option),
        });
        input.checked = S.values[widget.id] === option;
        return h('label', { class: 'choice' }, input, h('span', null, option));
      });
      // Focusable as a whole, so the guide can bring the signer to it; arrows move between its options.
      control = h(
        'div',
        { role: 'radiogroup', tabindex: '-1', 'aria-label': label, 'aria-required': widget.required ? 'true' : undefined },
        choices,
      );
      control.classList.add('radio-group');
      break;
    }
    default:
      control = h('div', { title: label }, widget.text ?? '');
  }
  control.dataset.testid = `widget-${widget.id}`;
  ui.widgets[widget.id] = control;
  return box ?? control;
}

/** A phone-sized window (sign.css switches to the phone view at the same width). */
export const phoneView = () => window.matchMedia('(max-width: 600px)').matches;

/**
 * Goes to one of the signer's fields: scrolled to the middle of the window (clear of the phone's
 * bottom bar, which sign.css keeps out of the scroll area), focused and marked as the current one.
 * On a phone the document is first zoomed so that its text is readable around the field.
 */
/** @param {string} id */
export async function focusWidget(id) {
  const control = ui.widgets[id];
  if (!control) return showError(t('browser.sign.error.loading'));
  const widget = S.state.widgets.find((candidate) => candidate.id === id);
  if (phoneView() && widget) {
    const readable = await readableZoom(widget.page);
    if (readable > (S.zoom ?? 1)) setZoom(readable);
  }
  for (const previous of document.querySelectorAll('.widget.current')) previous.classList.remove('current');
  control.closest('.widget')?.classList.add('current');
  const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  control.scrollIntoView({ block: 'center', inline: 'center', behavior: smooth ? 'smooth' : 'auto' });
  control.focus({ preventScroll: true });
}

/** The signer's fields in reading order, and those of them that still need something. */
export function ownFields() {
  const own = S.state.widgets
    .filter((widget) => fillsIn(widget) || (widget.mine && widget.type === 'signature'))
    .sort((a, b) => a.page - b.page || a.y - b.y || a.x - b.x);
  const pending = own.filter((widget) => (widget.type === 'signature' ? !S.signature : !answered(widget)));
  return { own, pending };
}

/** The next of the signer's fields, in reading order, that still needs something. */
export function nextField() {
  const { own, pending } = ownFields();
  const list = pending.length > 0 ? pending : own;
  const current = list.findIndex((widget) => ui.widgets[widget.id] === document.activeElement);
  const next = list[(current + 1) % list.length];
  if (next) focusWidget(next.id);
  else ui.consent.focus();
}
