// The visual template editor: the PDF's pages drawn with pdf.js (as the sign page draws them), fields
// placed per role by dragging from the palette, moved and resized by dragging, kept as the template's
// widgets JSON (PDF points from the page's top-left) in the form's hidden field. The selected field is
// named, labelled and given its options in the panel beside (template-editor-props.js).

import { h } from './dom.js';
import { t, tn } from './messages.js';
import { openPdf } from './pdf-open.js';
import { choosing, fieldPanel } from './template-editor-props.js';

// The editor's page (api/app/pages/template-editor.ts) always renders these but the PDF input (a new template only).
const pagesEl = /** @type {HTMLElement} */ (document.getElementById('editor-pages'));
const widgetsInput = /** @type {HTMLInputElement} */ (document.getElementById('editor-widgets'));
const rolesInput = /** @type {HTMLInputElement} */ (document.getElementById('editor-roles'));
const roleSelect = /** @type {HTMLSelectElement} */ (document.getElementById('editor-role'));
const kindSelect = /** @type {HTMLSelectElement} */ (document.getElementById('editor-kind'));
const palette = /** @type {HTMLElement} */ (document.querySelector('[data-testid="palette-field"]'));
const counter = /** @type {HTMLElement} */ (document.getElementById('editor-count'));
const pdfInput = /** @type {HTMLInputElement | null} */ (document.getElementById('editor-pdf'));

/** A new field's size in PDF points, by kind. */
const SIZES = {
  signature: [160, 40],
  initials: [60, 30],
  date: [100, 20],
  name: [160, 20],
  email: [180, 20],
  text: [160, 20],
  checkbox: [16, 16],
  dropdown: [140, 20],
  radio: [140, 48],
};
const MIN = 8;

/** @typedef {import('../../../db/models/widget').Widget} Widget */
/** @typedef {{ number: number, width: number, height: number, el: HTMLElement, overlay: HTMLElement }} Page */

/** The template's fields, as the form posts them (activities/templates/schema.ts checks them). @type {Widget[]} */
let widgets = [];
try {
  widgets = JSON.parse(widgetsInput.value || '[]');
  if (!Array.isArray(widgets)) widgets = [];
} catch {
  widgets = [];
}
/** The pages drawn: { number, width, height (points), el, overlay }. @type {Page[]} */
let pages = [];

const round = (/** @type {number} */ value) => Math.round(value * 10) / 10;
/** @param {number} value @param {number} low @param {number} high */
const clamp = (value, low, high) => Math.min(Math.max(value, low), high);

function roles() {
  const typed = rolesInput.value
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  const list = typed.length ? typed : ['Signer'];
  for (const widget of widgets) if (!list.includes(widget.role)) list.push(widget.role);
  return list;
}

function refreshRoles() {
  const chosen = roleSelect.value;
  const list = roles();
  roleSelect.replaceChildren(...list.map((role) => h('option', { value: role }, role)));
  if (list.includes(chosen)) roleSelect.value = chosen;
}

/** Each placed field's element, to follow a change made in the panel. @type {Map<Widget, HTMLElement>} */
const elements = new Map();
const panel = fieldPanel({
  taken: (name, widget) => widgets.some((other) => other !== widget && other.id === name),
  changed: (widget) => {
    const el = elements.get(widget);
    if (el) {
      el.dataset.id = widget.id;
      el.title = widget.id;
      el.querySelector('.remove')?.setAttribute('aria-label', t('browser.editor.field.remove', { id: widget.id }));
    }
    sync();
  },
});

/** The field the panel shows, marked on its page. @param {Widget | undefined} widget */
function select(widget) {
  if (panel.current === widget) return;
  for (const [other, el] of elements) el.classList.toggle('selected', other === widget);
  panel.select(widget);
}

function sync() {
  widgetsInput.value = JSON.stringify(widgets);
  counter.textContent = tn('browser.editor.count', widgets.length);
}

/** @param {string} role @param {string} type */
function newId(role, type) {
  const stem = `${role}-${type}`.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 50) || type;
  for (let n = 1; ; n += 1) {
    const id = `${stem}-${n}`;
    if (!widgets.some((widget) => widget.id === id)) return id;
  }
}

/** The field's box on its page, in percent of the page, so it follows the page's drawn size. */
/**
 * @param {HTMLElement} el
 * @param {Widget} widget
 * @param {Page} page
 */
function place(el, widget, page) {
  el.style.left = `${(widget.x / page.width) * 100}%`;
  el.style.top = `${(widget.y / page.height) * 100}%`;
  el.style.width = `${(widget.width / page.width) * 100}%`;
  el.style.height = `${(widget.height / page.height) * 100}%`;
}

/**
 * @param {Widget} widget
 * @param {Page} page
 */
function fieldElement(widget, page) {
  const roleIndex = Math.max(0, roles().indexOf(widget.role)) % 6;
  const remove = h(
    'button',
    { type: 'button', class: 'remove', 'aria-label': t('browser.editor.field.remove', { id: widget.id }), testid: 'field-remove' },
    '×',
  );
  const kind = t(`browser.editor.kind.${widget.type}`);
  const handle = h('span', { class: 'handle', 'aria-hidden': 'true', testid: 'field-resize' });
  const el = h(
    'div',
    {
      class: `editor-field role-${roleIndex}`,
      testid: 'field',
      'data-id': widget.id,
      'data-role': widget.role,
      title: widget.id,
      tabindex: '0',
      role: 'group',
      'aria-label': t('browser.editor.field.aria', { role: widget.role, kind, page: widget.page }),
    },
    h('span', { class: 'label' }, t('browser.editor.field.label', { role: widget.role, kind })),
    remove,
    handle,
  );
  place(el, widget, page);
  elements.set(widget, el);
  el.addEventListener('focus', () => select(widget));
  const removeField = () => {
    widgets = widgets.filter((other) => other !== widget);
    elements.delete(widget);
    if (panel.current === widget) select(undefined);
    el.remove();
    sync();
  };
  remove.addEventListener('click', removeField);
  // The keyboard does what the mouse does: arrows move by a point (Shift: ten), Alt+arrows resize.
  el.addEventListener('keydown', (event) => {
    if (event.target !== el) return;
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      return removeField();
    }
    const step = event.shiftKey ? 10 : 1;
    const delta = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
    if (!delta) return;
    event.preventDefault();
    if (event.altKey) {
      widget.width = round(clamp(widget.width + delta[0], MIN, page.width - widget.x));
      widget.height = round(clamp(widget.height + delta[1], MIN, page.height - widget.y));
    } else {
      widget.x = round(clamp(widget.x + delta[0], 0, page.width - widget.width));
      widget.y = round(clamp(widget.y + delta[1], 0, page.height - widget.height));
    }
    place(el, widget, page);
    sync();
  });
  // Move by the body, resize by the corner: the pointer's travel in pixels becomes points at the page's drawn scale.
  el.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || event.target === remove) return;
    event.preventDefault();
    select(widget);
    const resizing = event.target === handle;
    const scale = page.el.getBoundingClientRect().width / page.width;
    const start = { px: event.clientX, py: event.clientY, x: widget.x, y: widget.y, width: widget.width, height: widget.height };
    el.setPointerCapture(event.pointerId);
    el.classList.add('dragging');
    const move = (/** @type {PointerEvent} */ moved) => {
      const dx = (moved.clientX - start.px) / scale;
      const dy = (moved.clientY - start.py) / scale;
      if (resizing) {
        widget.width = round(clamp(start.width + dx, MIN, page.width - widget.x));
        widget.height = round(clamp(start.height + dy, MIN, page.height - widget.y));
      } else {
        widget.x = round(clamp(start.x + dx, 0, page.width - widget.width));
        widget.y = round(clamp(start.y + dy, 0, page.height - widget.height));
      }
      place(el, widget, page);
    };
    const end = () => {
      el.removeEventListener('pointermove', move);
      el.classList.remove('dragging');
      sync();
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', end, { once: true });
    el.addEventListener('pointercancel', end, { once: true });
  });
  return el;
}

/** @param {number} x @param {number} y */
function pageAt(x, y) {
  return pages.find((page) => {
    const rect = page.el.getBoundingClientRect();
    return x >= rect.left && x <= rect.right && y >= rect.top && y <= rect.bottom;
  });
}

// A new field: dragged from the palette and dropped on a page, its top-left corner where the pointer lets go.
palette.addEventListener('pointerdown', (event) => {
  if (event.button !== 0) return;
  event.preventDefault();
  const type = /** @type {Widget['type']} */ (kindSelect.value);
  const role = roleSelect.value;
  const ghost = h(
    'div',
    { class: 'drag-ghost', 'aria-hidden': 'true' },
    t('browser.editor.field.label', { role, kind: t(`browser.editor.kind.${type}`) }),
  );
  const follow = (/** @type {PointerEvent} */ moved) => {
    ghost.style.left = `${moved.clientX}px`;
    ghost.style.top = `${moved.clientY}px`;
  };
  follow(event);
  document.body.append(ghost);
  palette.setPointerCapture(event.pointerId);
  const drop = (/** @type {PointerEvent} */ up) => {
    palette.removeEventListener('pointermove', follow);
    ghost.remove();
    const page = pageAt(up.clientX, up.clientY);
    if (!page) return;
    const rect = page.el.getBoundingClientRect();
    const scale = rect.width / page.width;
    const [width, height] = SIZES[type] ?? [120, 20];
    const w = Math.min(width, page.width);
    const hgt = Math.min(height, page.height);
    /** @type {Widget} */
    const widget = {
      id: newId(role, type),
      type,
      role,
      page: page.number,
      x: round(clamp((up.clientX - rect.left) / scale, 0, page.width - w)),
      y: round(clamp((up.clientY - rect.top) / scale, 0, page.height - hgt)),
      width: w,
      height: hgt,
      required: type !== 'checkbox',
    };
    if (choosing(widget)) widget.options = [1, 2].map((n) => t('browser.editor.option', { n }));
    widgets.push(widget);
    const el = fieldElement(widget, page);
    page.overlay.append(el);
    sync();
    // Selected at once: a dropdown's or radio group's options are the next thing to type.
    el.focus();
    select(widget);
  };
  palette.addEventListener('pointermove', follow);
  palette.addEventListener('pointerup', drop, { once: true });
  palette.addEventListener('pointercancel', () => ghost.remove(), { once: true });
});

/** @param {Uint8Array} data */
async function render(data) {
  pagesEl.replaceChildren(h('p', { class: 'hint' }, t('browser.editor.loading')));
  // The sign page's pdf.js, opened with the same options.
  const pdf = await openPdf(data);
  pagesEl.replaceChildren();
  pages = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const pdfPage = await pdf.getPage(number);
    const { width, height } = pdfPage.getViewport({ scale: 1 });
    const canvas = h('canvas', { 'aria-hidden': 'true' });
    const overlay = h('div', { class: 'editor-overlay' });
    const el = h(
      'div',
      {
        class: 'editor-page',
        role: 'group',
        'aria-label': t('browser.page_of', { number, count: pdf.numPages }),
        testid: `editor-page-${number}`,
      },
      canvas,
      overlay,
    );
    el.style.aspectRatio = `${width} / ${height}`;
    pagesEl.append(el);
    const page = { number, width, height, el, overlay };
    pages.push(page);
    const scale = (el.getBoundingClientRect().width / width) * (window.devicePixelRatio || 1);
    const viewport = pdfPage.getViewport({ scale });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    // Drawn through the canvas's context (pdf.js's types now ask for the canvas itself, as the other viewers pass it).
    const params = /** @type {Parameters<import('/static/pdfjs/pdf.min.mjs').PDFPageProxy['render']>[0]} */ ({
      canvasContext: /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')),
      viewport,
    });
    await pdfPage.render(params).promise;
    el.dataset.rendered = 'true';
  }
  // Fields on pages the PDF does not have are dropped: the service would refuse them.
  widgets = widgets.filter((widget) => widget.page >= 1 && widget.page <= pages.length);
  elements.clear();
  select(undefined);
  for (const widget of widgets) {
    const page = pages[widget.page - 1];
    page.overlay.append(fieldElement(widget, page));
  }
  sync();
  pagesEl.dataset.ready = 'true';
}

function failed(/** @type {Error} */ error) {
  pagesEl.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, t('browser.editor.failed', { reason: error.message })));
}

rolesInput.addEventListener('input', refreshRoles);
refreshRoles();
sync();

if (pdfInput) {
  pdfInput.addEventListener('change', async () => {
    const file = pdfInput.files?.[0];
    if (file) await render(new Uint8Array(await file.arrayBuffer())).catch(failed);
  });
  // A file kept by the browser (back navigation) is drawn at once.
  if (pdfInput.files?.[0]) pdfInput.dispatchEvent(new Event('change'));
} else if (pagesEl.dataset.pdfUrl) {
  fetch(pagesEl.dataset.pdfUrl, { credentials: 'same-origin' })
    .then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.arrayBuffer();
    })
    .then((buffer) => render(new Uint8Array(buffer)))
    .catch(failed);
}
