// The drawing pad for a signature or initials: pointer strokes on a canvas, cut to the ink as a PNG.
// Shared by the sign page (its signature dialog) and the app's signature page.

import { h } from './dom.js';
import { t } from './messages.js';

export const INK = '#1b2a6b';

/**
 * A canvas to draw on with mouse, finger or pen. `toPng()` answers a PNG data URL of the ink only,
 * or null while nothing is drawn.
 * @param {{ width?: number, height?: number, label?: string, testid?: string, onChange?: () => void }} [options]
 */
export function createSignaturePad({ width = 1000, height = 300, label = t('browser.pad.label'), testid = 'draw-canvas', onChange } = {}) {
  const canvas = h('canvas', { class: 'pad', width: String(width), height: String(height), role: 'img', 'aria-label': label, testid });
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { willReadFrequently: true }));
  let inked = false;
  /** @typedef {{ x: number, y: number }} Point */
  /** @type {Point | null} */
  let last = null;
  /** @type {Point | null} */
  let mid = null;

  /** @returns {Point} */
  const point = (/** @type {PointerEvent} */ event) => {
    const rect = canvas.getBoundingClientRect();
    return { x: ((event.clientX - rect.left) * canvas.width) / rect.width, y: ((event.clientY - rect.top) * canvas.height) / rect.height };
  };
  const style = () => {
    ctx.strokeStyle = ctx.fillStyle = INK;
    ctx.lineWidth = 5;
    ctx.lineCap = ctx.lineJoin = 'round';
  };
  canvas.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    canvas.setPointerCapture(event.pointerId);
    style();
    last = mid = point(event);
    ctx.beginPath();
    ctx.arc(last.x, last.y, 2.5, 0, Math.PI * 2);
    ctx.fill();
    inked = true;
    onChange?.();
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!last || !mid) return;
    // Coalesced events keep fast strokes smooth; each segment curves through the midpoints.
    for (const sample of event.getCoalescedEvents?.() ?? [event]) {
      const p = point(sample);
      const next = { x: (last.x + p.x) / 2, y: (last.y + p.y) / 2 };
      ctx.beginPath();
      ctx.moveTo(mid.x, mid.y);
      ctx.quadraticCurveTo(last.x, last.y, next.x, next.y);
      ctx.stroke();
      last = p;
      mid = next;
    }
  });
  const end = () => {
    last = mid = null;
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);

  return {
    canvas,
    isEmpty: () => !inked,
    clear() {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      inked = false;
      onChange?.();
    },
    toPng: () => (inked ? trimmedPng(canvas) : null),
  };
}

/** The ink only: transparent margins cut away, a few pixels kept around it. */
/** @param {HTMLCanvasElement} canvas @returns {string | null} */
export function trimmedPng(canvas) {
  const { width, height } = canvas;
  const { data } = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')).getImageData(0, 0, width, height);
  let top = height;
  let left = width;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (data[(y * width + x) * 4 + 3] === 0) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      bottom = y;
    }
  }
  if (right < 0) return null;
  const margin = 4;
  const w = right - left + 1;
  const hgt = bottom - top + 1;
  const out = h('canvas', { width: String(w + margin * 2), height: String(hgt + margin * 2) });
  /** @type {CanvasRenderingContext2D} */ (out.getContext('2d')).drawImage(canvas, left, top, w, hgt, margin, margin, w, hgt);
  return out.toDataURL('image/png');
}
