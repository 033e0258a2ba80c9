// The PDF of the sign page, drawn with pdf.js page by page as pages come near the viewport, with
// the signer's fields laid over each page.

import { h } from './dom.js';
import { t, tn } from './messages.js';
import { openPdf } from './pdf-open.js';
import { ApiError, base, changed, S, say } from './sign-context.js';
import { widgetElement } from './sign-fields.js';

/** @typedef {import('/static/pdfjs/pdf.min.mjs').PDFDocumentProxy} PDFDocumentProxy */
/** @typedef {import('/static/pdfjs/pdf.min.mjs').PDFPageProxy} PDFPageProxy */
/**
 * One page of the viewer: its pdf.js page, size in points, element and canvas, and (once asked) its text size.
 * @typedef {{ number: number, page: PDFPageProxy, width: number, height: number, el: HTMLElement, canvas: HTMLCanvasElement,
 *   renderedWidth: number, near?: boolean, textPt?: number }} PageSlot
 */
/**
 * @typedef {{ destroyed: boolean, pdf: PDFDocumentProxy | null, pages: Map<number, PageSlot>,
 *   add: (slot: PageSlot) => void, destroy: () => void }} Viewer
 */

/** The most device pixels one page's canvas holds (a zoomed-in page on a 3x phone screen). */
const MAX_CANVAS_PIXELS = 16_000_000;

/** @param {HTMLElement} container */
export async function renderPdf(container) {
  S.viewer?.destroy();
  const viewer = createViewer();
  S.viewer = viewer;
  container.append(h('p', { class: 'hint loading', testid: 'pdf-loading' }, t('browser.sign.loading')));
  const response = await fetch(`${base}/document.pdf`, { credentials: 'same-origin' });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new ApiError(response.status, body.error);
  }
  const data = new Uint8Array(await response.arrayBuffer());
  const pdf = await openPdf(data);
  if (viewer.destroyed) return pdf.destroy();
  viewer.pdf = pdf;
  container.replaceChildren();
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    if (viewer.destroyed) return;
    const { width, height } = page.getViewport({ scale: 1 });
    const overlay = h(
      'div',
      { class: 'overlay' },
      S.state.widgets.filter((widget) => widget.page === number).map((widget) => widgetElement(widget, width, height)),
    );
    const canvas = h('canvas', { 'aria-hidden': 'true' });
    const el = h(
      'div',
      { class: 'page', role: 'group', 'aria-label': t('browser.page_of', { number, count: pdf.numPages }), testid: `page-${number}` },
      canvas,
      overlay,
    );
    el.style.aspectRatio = `${width} / ${height}`;
    container.append(el);
    viewer.add({ number, page, width, height, el, canvas, renderedWidth: 0 });
  }
  changed();
  if (S.state.can_sign) say(tn('browser.sign.loaded', pdf.numPages));
}

/** Renders pages near the viewport one at a time, so a long document never blocks the page. @returns {Viewer} */
function createViewer() {
  /** @type {Set<PageSlot>} */
  const queue = new Set();
  /** @type {Map<Element, PageSlot>} */
  const slots = new Map();
  let running = false;
  // add and destroy are set below, once the observers they use exist.
  const viewer = /** @type {Viewer} */ ({ destroyed: false, pdf: null, pages: new Map() });

  const visible = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const slot = /** @type {PageSlot} */ (slots.get(entry.target));
        slot.near = entry.isIntersecting;
        if (slot.near) queue.add(slot);
      }
      pump();
    },
    { rootMargin: '800px 0px' },
  );
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const slot = /** @type {PageSlot} */ (slots.get(entry.target));
      const cssWidth = entry.target.clientWidth;
      // Widget text scales with the page: scale = CSS width / width in points.
      slot.el.style.setProperty('--scale', String(cssWidth / slot.width));
      if (slot.renderedWidth && Math.abs(cssWidth - slot.renderedWidth) / slot.renderedWidth > 0.15) queue.add(slot);
    }
    pump();
  });

  async function pump() {
    if (running) return;
    running = true;
    try {
      while (queue.size > 0 && !viewer.destroyed) {
        // Pages scrolled past before their turn wait until they come back into view.
        for (const waiting of queue) if (!waiting.near) queue.delete(waiting);
        const slot = [...queue].sort((a, b) => a.number - b.number)[0];
        if (!slot) break;
        queue.delete(slot);
        await renderSlot(slot).catch((error) => console.error(`page ${slot.number}`, error));
      }
    } finally {
      running = false;
    }
  }

  /** @param {PageSlot} slot */
  async function renderSlot(slot) {
    const cssWidth = slot.el.clientWidth;
    if (!cssWidth) return;
    // Sharp on a phone's 3x screen, within a pixel budget per page so a zoomed-in page stays light.
    const budget = Math.sqrt(MAX_CANVAS_PIXELS / (cssWidth * slot.el.clientHeight || 1));
    const ratio = Math.max(1, Math.min(window.devicePixelRatio || 1, 3, budget));
    const viewport = slot.page.getViewport({ scale: (cssWidth / slot.width) * ratio });
    // Rendered off-screen then swapped in, so a re-render never flashes a blank page.
    const canvas = h('canvas', { 'aria-hidden': 'true' });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    await slot.page.render({ canvas, viewport }).promise;
    if (viewer.destroyed) return;
    slot.canvas.replaceWith(canvas);
    slot.canvas = canvas;
    slot.renderedWidth = cssWidth;
    slot.el.dataset.rendered = 'true';
  }

  viewer.add = (slot) => {
    slots.set(slot.el, slot);
    viewer.pages.set(slot.number, slot);
    visible.observe(slot.el);
    resized.observe(slot.el);
  };
  viewer.destroy = () => {
    viewer.destroyed = true;
    visible.disconnect();
    resized.disconnect();
    viewer.pdf?.destroy();
  };
  return viewer;
}
