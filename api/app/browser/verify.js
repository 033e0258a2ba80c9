// The verify page: a PDF can be dropped on the form as well as picked; the form works without this.

import { t } from './messages.js';

function dropZone() {
  const zone = /** @type {HTMLElement | null} */ (document.querySelector('[data-drop-zone]'));
  const input = /** @type {HTMLInputElement | null} */ (zone?.querySelector('input[type="file"]'));
  const hint = zone?.querySelector('[data-drop-hint]');
  const problem = document.querySelector('[data-testid="verify-problem"]');
  if (!zone || !input || !hint || !problem) return;
  const limit = Number(zone.dataset.limit);

  /** Says at once when the chosen file cannot be taken; the server checks again. */
  const check = () => {
    problem.textContent = '';
    input.removeAttribute('aria-invalid');
    const file = input.files?.[0];
    if (!file) return;
    if (limit && file.size > limit) {
      problem.textContent = t('browser.verify.too_big', {
        name: file.name,
        size: (file.size / 1024 / 1024).toFixed(1),
        limit: Math.round(limit / 1024 / 1024),
      });
      input.setAttribute('aria-invalid', 'true');
      input.value = '';
      return;
    }
    hint.textContent = t('browser.verify.chosen', { name: file.name });
  };

  const over = (/** @type {DragEvent} */ event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  };
  zone.addEventListener('dragenter', over);
  zone.addEventListener('dragover', over);
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (/** @type {DragEvent} */ event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const files = event.dataTransfer?.files;
    if (!files || files.length === 0) return;
    input.files = files;
    check();
    const submit = /** @type {HTMLElement | null | undefined} */ (zone.closest('form')?.querySelector('button[type="submit"]'));
    if (input.files?.length) submit?.focus();
  });
  input.addEventListener('change', check);
}

dropZone();
