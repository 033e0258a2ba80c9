// The phone view's zoom: its steps, the zoom the signer sets, and the zoom at which a page's text is
// readable (the fields guide the signer there). Apart from the viewer, which draws at whatever zoom is set.

import { t } from './messages.js';
import { changed, S, ui } from './sign-context.js';

/** Zoom levels of the phone view, as multiples of fit-to-width. */
export const ZOOM_STEPS = [1, 1.25, 1.5, 2, 2.5, 3, 4];
const MAX_ZOOM = /** @type {number} */ (ZOOM_STEPS.at(-1));
/** The smallest text, in CSS pixels, that counts as readable when the page guides the signer to a field. */
const READABLE_PX = 12;

/**
 * Shows the pages at `zoom` times their fit-to-width size (the phone view; wider screens always fit),
 * keeping the point at the middle of the window where it was. The canvases are drawn again at the new
 * size by the viewer's ResizeObserver.
 */
export function setZoom(/** @type {number} */ zoom, container = /** @type {HTMLElement | null} */ (document.querySelector('.pages'))) {
  if (!container) return;
  const level = Math.min(MAX_ZOOM, Math.max(ZOOM_STEPS[0], zoom));
  const before = container.getBoundingClientRect();
  const fx = (container.scrollLeft + container.clientWidth / 2) / (container.scrollWidth || 1);
  const fy = (window.innerHeight / 2 - before.top) / (before.height || 1);
  S.zoom = level;
  container.style.setProperty('--zoom', String(level));
  container.dataset.zoom = String(level);
  const after = container.getBoundingClientRect();
  container.scrollLeft = fx * container.scrollWidth - container.clientWidth / 2;
  if (after.height !== before.height) window.scrollBy(0, after.top + fy * after.height - window.innerHeight / 2);
  changed();
}

/** The phone bar's zoom buttons show the zoom set, and stop at the ends. */
export function refreshZoom() {
  if (!ui.zoomFit) return;
  const zoom = S.zoom ?? 1;
  const percent = Math.round(zoom * 100);
  ui.zoomFit.textContent = t('browser.sign.zoom.level', { percent });
  ui.zoomFit.setAttribute('aria-label', t('browser.sign.zoom.fit', { percent }));
  ui.zoomOut.disabled = zoom <= ZOOM_STEPS[0];
  ui.zoomIn.disabled = zoom >= MAX_ZOOM;
}

/** The next zoom step up (+1) or down (-1) from the current one. */
export function stepZoom(/** @type {number} */ direction) {
  const current = S.zoom ?? 1;
  const next = direction > 0 ? ZOOM_STEPS.find((step) => step > current + 1e-6) : ZOOM_STEPS.findLast((step) => step < current - 1e-6);
  setZoom(next ?? current);
}

/**
 * The zoom at which most of a page's text is at least READABLE_PX CSS pixels high, from the text
 * sizes pdf.js reports for it (the size most characters are set in). Remembered per page.
 */
export async function readableZoom(/** @type {number} */ number, container = document.querySelector('.pages')) {
  const slot = S.viewer?.pages.get(number);
  if (!slot || !container) return 1;
  if (slot.textPt === undefined) {
    const sizes = new Map();
    try {
      const content = await slot.page.getTextContent();
      for (const item of content.items) {
        if (!('str' in item)) continue; // a marked-content tag, no text
        const chars = item.str?.trim().length ?? 0;
        const size = Math.round((item.height ?? 0) * 2) / 2;
        if (chars > 0 && size > 0) sizes.set(size, (sizes.get(size) ?? 0) + chars);
      }
    } catch {
      // No text (a scanned page): the page fits the width.
    }
    slot.textPt = [...sizes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  }
  const { textPt } = slot;
  if (!textPt) return 1;
  const fitScale = container.clientWidth / slot.width;
  return ZOOM_STEPS.find((step) => textPt * fitScale * step >= READABLE_PX) ?? MAX_ZOOM;
}
