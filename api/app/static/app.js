// Small enhancements of the app's server-rendered pages; every form also works without them.

import { createSignaturePad } from './signature-pad.js';

const IMAGE_TYPES = ['image/png', 'image/jpeg'];
const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

/** The signature page: a drawing pad whose PNG is posted in the form's hidden field. */
function drawForm() {
  const section = document.getElementById('draw-section');
  const form = document.getElementById('draw-form');
  if (!section || !form) return;
  const problem = form.querySelector('[data-testid="draw-problem"]');
  const pad = createSignaturePad({
    label: 'Drawing area for your signature. Without a mouse or touch screen, upload an image instead.',
    onChange: () => (problem.textContent = ''),
  });
  pad.canvas.setAttribute('aria-describedby', 'draw-help');
  form.querySelector('[data-pad]').append(pad.canvas);
  form.querySelector('[data-pad-clear]').addEventListener('click', () => pad.clear());
  form.addEventListener('submit', (event) => {
    const png = pad.toPng();
    if (!png) {
      event.preventDefault();
      problem.textContent = 'Draw your signature in the box first.';
      return;
    }
    form.elements.drawn.value = png;
  });
  section.hidden = false;
}

/** The upload form says at once when a file cannot be a signature; the server checks again. */
function uploadCheck() {
  const input = document.getElementById('signature-file');
  const problem = document.querySelector('[data-testid="upload-problem"]');
  if (!input || !problem) return;
  input.addEventListener('change', () => {
    problem.textContent = '';
    input.removeAttribute('aria-invalid');
    const file = input.files?.[0];
    if (!file) return;
    let message = '';
    if (file.type && !IMAGE_TYPES.includes(file.type)) message = `“${file.name}” is not a PNG or JPEG image. Choose a .png or .jpg file.`;
    else if (file.size > MAX_IMAGE_BYTES)
      message = `“${file.name}” is ${(file.size / 1024 / 1024).toFixed(1)} MB; the largest image you can use is 2 MB.`;
    if (!message) return;
    problem.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.value = '';
  });
}

/** "Copy" next to a value shown once (a new API key). */
function copyButtons() {
  for (const button of document.querySelectorAll('[data-copy]')) {
    const source = document.getElementById(button.dataset.copy);
    const status = document.querySelector('[data-copy-status]');
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        if (status) status.textContent = 'Copied. Keep it somewhere safe.';
      } catch {
        if (status) status.textContent = 'Copying did not work here; select the key and copy it yourself.';
      }
    });
  }
}

drawForm();
uploadCheck();
copyButtons();
