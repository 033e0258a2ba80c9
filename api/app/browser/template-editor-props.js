// The template editor's panel for the selected field (api/app/pages/template-editor.ts renders it):
// its name (the id agents fill it by), the label the signer reads, whether it is required, and a
// dropdown's or radio group's options. Each change is written back to the field at once.

import { t } from './messages.js';

/** @typedef {import('../../../db/models/widget').Widget} Widget */

const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const panel = /** @type {HTMLFieldSetElement} */ (byId('editor-props'));
const hint = byId('field-props-hint');
const nameInput = /** @type {HTMLInputElement} */ (byId('field-name'));
const labelInput = /** @type {HTMLInputElement} */ (byId('field-label'));
const requiredInput = /** @type {HTMLInputElement} */ (byId('field-required'));
const optionsInput = /** @type {HTMLTextAreaElement} */ (byId('field-options'));
const optionsLabel = byId('field-options-label');
const error = byId('field-props-error');
const NONE = hint.textContent ?? '';

/** A field's name: what activities/templates/schema.ts takes as a widget's id. */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Whether a field chooses among options. @param {Widget} widget */
export const choosing = (widget) => widget.type === 'dropdown' || widget.type === 'radio';

/**
 * The panel, bound to the editor: `taken` says whether another field has a name, `changed` is told
 * of each change written to the selected field.
 * @param {{ taken: (name: string, widget: Widget) => boolean, changed: (widget: Widget) => void }} hooks
 */
export function fieldPanel(hooks) {
  /** @type {Widget | undefined} */
  let current;
  const say = (/** @type {string | undefined} */ message) => {
    error.hidden = !message;
    error.textContent = message ?? '';
  };
  nameInput.addEventListener('input', () => {
    if (!current) return;
    const name = nameInput.value.trim();
    const problem = !NAME.test(name)
      ? t('browser.editor.props.name_invalid')
      : hooks.taken(name, current)
        ? t('browser.editor.props.name_taken', { name })
        : undefined;
    nameInput.setAttribute('aria-invalid', problem ? 'true' : 'false');
    say(problem);
    if (problem) return;
    current.id = name;
    hooks.changed(current);
  });
  labelInput.addEventListener('input', () => {
    if (!current) return;
    const label = labelInput.value.trim();
    if (label) current.label = label;
    else delete current.label;
    hooks.changed(current);
  });
  requiredInput.addEventListener('change', () => {
    if (!current) return;
    current.required = requiredInput.checked;
    hooks.changed(current);
  });
  optionsInput.addEventListener('input', () => {
    if (!current) return;
    const options = [...new Set(optionsInput.value.split('\n').map((line) => line.trim()))].filter(Boolean);
    const problem = options.length < (current.type === 'radio' ? 2 : 1) ? t('browser.editor.props.options_few') : undefined;
    optionsInput.setAttribute('aria-invalid', problem ? 'true' : 'false');
    say(problem);
    if (problem) return;
    current.options = options;
    hooks.changed(current);
  });
  return {
    /** Shows `widget` in the panel (or nothing when it is undefined). @param {Widget | undefined} widget */
    select(widget) {
      current = widget;
      panel.disabled = !widget;
      say(undefined);
      for (const input of [nameInput, optionsInput]) input.removeAttribute('aria-invalid');
      hint.textContent = widget
        ? t('browser.editor.props.selected', { kind: t(`browser.editor.kind.${widget.type}`), role: widget.role })
        : NONE;
      nameInput.value = widget?.id ?? '';
      labelInput.value = widget?.label ?? '';
      requiredInput.checked = widget?.required ?? false;
      const options = Boolean(widget && choosing(widget));
      optionsInput.hidden = !options;
      optionsLabel.hidden = !options;
      optionsInput.value = (widget?.options ?? []).join('\n');
    },
    /** The field shown, if any. */
    get current() {
      return current;
    },
  };
}
