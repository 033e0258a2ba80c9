// Small enhancements of the app's server-rendered pages; every form also works without them.

import { t } from './messages.js';
import { createSignaturePad } from './signature-pad.js';

const IMAGE_TYPES = ['image/png', 'image/jpeg'];
const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

/** The signature page: a drawing pad whose PNG is posted in the form's hidden field. */
function drawForm() {
  const section = document.getElementById('draw-section');
  const form = /** @type {HTMLFormElement | null} */ (document.getElementById('draw-form'));
  if (!section || !form) return;
  const problem = /** @type {HTMLElement} */ (form.querySelector('[data-testid="draw-problem"]'));
  const pad = createSignaturePad({
    label: t('browser.app.pad.label'),
    onChange: () => (problem.textContent = ''),
  });
  pad.canvas.setAttribute('aria-describedby', 'draw-help');
  /** @type {HTMLElement} */ (form.querySelector('[data-pad]')).append(pad.canvas);
  /** @type {HTMLElement} */ (form.querySelector('[data-pad-clear]')).addEventListener('click', () => pad.clear());
  form.addEventListener('submit', (event) => {
    const png = pad.toPng();
    if (!png) {
      event.preventDefault();
      problem.textContent = t('browser.app.draw.empty');
      return;
    }
    /** @type {HTMLInputElement} */ (form.elements.namedItem('drawn')).value = png;
  });
  section.hidden = false;
}

/** The upload form says at once when a file cannot be a signature; the server checks again. */
function uploadCheck() {
  const input = /** @type {HTMLInputElement | null} */ (document.getElementById('signature-file'));
  const problem = document.querySelector('[data-testid="upload-problem"]');
  if (!input || !problem) return;
  input.addEventListener('change', () => {
    problem.textContent = '';
    input.removeAttribute('aria-invalid');
    const file = input.files?.[0];
    if (!file) return;
    let message = '';
    if (file.type && !IMAGE_TYPES.includes(file.type)) message = t('browser.image.not_image', { name: file.name });
    else if (file.size > MAX_IMAGE_BYTES)
      message = t('browser.image.too_big', { name: file.name, size: (file.size / 1024 / 1024).toFixed(1) });
    if (!message) return;
    problem.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.value = '';
  });
}

/** "Copy" next to a value shown once (a new API key). */
function copyButtons() {
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-copy]'))) {
    const source = document.getElementById(/** @type {string} */ (button.dataset.copy));
    const status = document.querySelector('[data-copy-status]');
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        if (status) status.textContent = t('browser.app.copy.done');
      } catch {
        if (status) status.textContent = t('browser.app.copy.failed');
      }
    });
  }
}

drawForm();
uploadCheck();
copyButtons();
