// The verify page: a PDF can be dropped on the form as well as picked; the form works without this.

function dropZone() {
  const zone = document.querySelector('[data-drop-zone]');
  const input = zone?.querySelector('input[type="file"]');
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
      problem.textContent = `“${file.name}” is ${(file.size / 1024 / 1024).toFixed(1)} MB; the largest PDF this page takes is ${Math.round(limit / 1024 / 1024)} MB.`;
      input.setAttribute('aria-invalid', 'true');
      input.value = '';
      return;
    }
    hint.textContent = `Chosen: ${file.name}`;
  };

  const over = (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  };
  zone.addEventListener('dragenter', over);
  zone.addEventListener('dragover', over);
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const files = event.dataTransfer?.files;
    if (!files || files.length === 0) return;
    input.files = files;
    check();
    if (input.files?.length) zone.closest('form')?.querySelector('button[type="submit"]')?.focus();
  });
  input.addEventListener('change', check);
}

dropZone();
