// The L1 confirm page: the page(s) of the PDF where the principal's stored signature will land,
// drawn with pdf.js (as the sign page draws its pages), each field of theirs marked on them.

import { h } from './dom.js';
import { t } from './messages.js';
import { openPdf } from './pdf-open.js';

/**
 * A field of the principal's as api/app/sign-request.ts writes it in data-fields.
 * @typedef {Pick<import('../../../db/models/widget').Widget, 'page' | 'x' | 'y' | 'width' | 'height' | 'type'>} PreviewField
 */

/** @param {HTMLElement} container */
async function preview(container) {
  /** @type {PreviewField[]} */
  const fields = JSON.parse(container.dataset.fields || '[]');
  const status = /** @type {HTMLElement} */ (container.querySelector('[data-preview-status]'));
  const pages = [...new Set(fields.map((field) => field.page))].sort((a, b) => a - b);
  if (!pages.length) return;
  try {
    const response = await fetch(/** @type {string} */ (container.dataset.pdf), { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`the PDF answered ${response.status}`);
    const pdf = await openPdf(new Uint8Array(await response.arrayBuffer()));
    for (const number of pages) {
      if (number > pdf.numPages) continue;
      const page = await pdf.getPage(number);
      const { width, height } = page.getViewport({ scale: 1 });
      const marks = fields
        .filter((field) => field.page === number)
        .map((field) => {
          const mark = h(
            'div',
            { class: `preview-mark ${field.type}`, testid: 'preview-mark', 'data-type': field.type },
            t(`browser.preview.field.${field.type}`),
          );
          // Widgets are in PDF points, origin top-left: placed as shares of the page, so they follow its size.
          mark.style.left = `${(field.x / width) * 100}%`;
          mark.style.top = `${(field.y / height) * 100}%`;
          mark.style.width = `${(field.width / width) * 100}%`;
          mark.style.height = `${(field.height / height) * 100}%`;
          return mark;
        });
      const canvas = h('canvas', { 'aria-hidden': 'true' });
      const figure = h(
        'figure',
        { class: 'preview-page', testid: `preview-page-${number}` },
        h('div', { class: 'preview-sheet' }, canvas, marks),
        h('figcaption', {}, t('browser.page_of', { number, count: pdf.numPages })),
      );
      container.append(figure);
      const sheet = /** @type {HTMLElement} */ (figure.firstChild);
      sheet.style.aspectRatio = `${width} / ${height}`;
      const ratio = Math.min(window.devicePixelRatio || 1, 2);
      const viewport = page.getViewport({ scale: ((sheet.clientWidth || width) / width) * ratio });
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      await page.render({ canvas, viewport }).promise;
      figure.dataset.rendered = 'true';
    }
    status.textContent = '';
    container.dataset.rendered = 'true';
  } catch (error) {
    console.error('preview', error);
    status.textContent = t('browser.preview.failed');
  }
}

const container = /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="l1-preview"]'));
if (container) preview(container);
