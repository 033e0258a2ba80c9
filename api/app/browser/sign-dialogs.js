// The sign page's dialogs: decline, and the signature (or initials) dialog with its Draw, Type and
// Upload tabs. The drawing pad itself is signature-pad.js, shared with the app.

import { h } from './dom.js';
import { t } from './messages.js';
import { api, changed, clearError, S, say } from './sign-context.js';
import { createSignaturePad, INK, trimmedPng } from './signature-pad.js';

const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;
const UPLOAD_TYPES = ['image/png', 'image/jpeg'];

/**
 * @param {string} titleText
 * @param {string} testid
 * @param {...import('./dom.js').Child} content
 */
function modal(titleText, testid, ...content) {
  const titleId = `${testid}-title`;
  const dialog = h('dialog', { class: 'modal', 'aria-labelledby': titleId, testid }, h('h2', { id: titleId }, titleText), ...content);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** `onDeclined` shows the document again, now declined. @param {() => Promise<void>} onDeclined */
export function openDeclineDialog(onDeclined) {
  const reason = h('textarea', { id: 'decline-reason', rows: '3', maxlength: '1000', testid: 'decline-reason' });
  const problem = h('p', { class: 'dialog-alert', role: 'alert', testid: 'dialog-alert' });
  const confirm = h(
    'button',
    { type: 'button', class: 'danger', testid: 'decline-confirm', onclick: decline },
    t('browser.sign.decline.confirm'),
  );
  const dialog = modal(
    t('browser.sign.decline.title'),
    'decline-dialog',
    h('p', null, t('browser.sign.decline.text')),
    h('label', { for: 'decline-reason' }, t('browser.sign.decline.reason')),
    reason,
    problem,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => dialog.close() }, t('browser.sign.dialog.cancel')),
      confirm,
    ),
  );
  reason.focus();

  async function decline() {
    confirm.disabled = true;
    problem.textContent = '';
    try {
      const text = reason.value.trim();
      await api('POST', '/decline', text ? { reason: text } : {});
      dialog.close();
      clearError();
      await onDeclined();
    } catch (error) {
      problem.textContent = error.message;
      confirm.disabled = false;
    }
  }
}

/** Draw, Type or Upload; kind 'initials' makes the initials image instead of the signature. @param {'signature' | 'initials'} kind */
export function openSignatureDialog(kind) {
  const signature = kind === 'signature';
  const typedText = signature ? S.state.signer.name : S.state.signer.initials;
  const problem = h('p', { class: 'dialog-alert', role: 'alert', testid: 'dialog-alert' });
  const tabs = [drawTab(signature), typeTab(typedText), uploadTab(problem)];
  let active = 0;

  const tabButtons = tabs.map((tab, index) =>
    h(
      'button',
      {
        type: 'button',
        role: 'tab',
        id: `tab-${tab.id}`,
        'aria-controls': `panel-${tab.id}`,
        testid: `tab-${tab.id}`,
        onclick: () => select(index),
      },
      tab.label,
    ),
  );
  const panels = tabs.map((tab) =>
    h('div', { role: 'tabpanel', id: `panel-${tab.id}`, 'aria-labelledby': `tab-${tab.id}`, class: 'tabpanel' }, tab.content),
  );
  const tablist = h(
    'div',
    { role: 'tablist', 'aria-label': t('browser.sign.signature.tabs'), class: 'tabs', onkeydown: arrows },
    tabButtons,
  );
  const apply = h(
    'button',
    { type: 'button', class: 'primary', testid: 'signature-apply', onclick: use },
    t(signature ? 'browser.sign.signature.use' : 'browser.sign.initials.use'),
  );
  const dialog = modal(
    t(signature ? 'browser.sign.signature.title' : 'browser.sign.initials.title'),
    'signature-dialog',
    tablist,
    panels,
    problem,
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => dialog.close() }, t('browser.sign.dialog.cancel')), apply),
  );
  select(0);

  /** @param {number} index */
  function select(index) {
    active = index;
    problem.textContent = '';
    tabButtons.forEach((button, i) => {
      button.setAttribute('aria-selected', String(i === index));
      button.tabIndex = i === index ? 0 : -1;
      panels[i].hidden = i !== index;
    });
    tabs[index].shown?.();
  }

  /** @param {KeyboardEvent} event */
  function arrows(event) {
    /** @type {Record<string, number>} */
    const moves = { ArrowRight: active + 1, ArrowLeft: active - 1 + tabs.length, Home: 0, End: tabs.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    select(moves[event.key] % tabs.length);
    tabButtons[active].focus();
  }

  async function use() {
    apply.disabled = true;
    try {
      const image = await tabs[active].result();
      if (!image) {
        problem.textContent = tabs[active].empty;
        return;
      }
      if (signature) S.signature = { method: tabs[active].method, image };
      else S.initials = image;
      dialog.close();
      say(t(signature ? 'browser.sign.signature.added' : 'browser.sign.initials.added'));
      changed();
    } finally {
      apply.disabled = false;
    }
  }
}

/**
 * @typedef {{ id: string, label: string, method: 'drawn' | 'typed' | 'uploaded', empty: string, content: import('./dom.js').Child,
 *   shown?: () => unknown, result: () => Promise<string | null> }} Tab
 */

/** @param {boolean} signature @returns {Tab} */
function drawTab(signature) {
  const pad = createSignaturePad({ label: t('browser.sign.draw.label'), testid: 'draw-canvas' });
  return {
    id: 'draw',
    label: t('browser.sign.draw.tab'),
    method: 'drawn',
    empty: t(signature ? 'browser.sign.draw.empty_signature' : 'browser.sign.draw.empty_initials'),
    content: [
      h('p', { class: 'hint' }, t('browser.sign.draw.hint')),
      pad.canvas,
      h('button', { type: 'button', class: 'link', testid: 'draw-clear', onclick: pad.clear }, t('browser.sign.draw.clear')),
    ],
    result: async () => pad.toPng(),
  };
}

/** @param {string} text @returns {Tab} */
function typeTab(text) {
  const input = h('input', {
    id: 'typed-name',
    type: 'text',
    maxlength: '100',
    autocomplete: 'off',
    testid: 'typed-name',
    oninput: () => draw(),
  });
  input.value = text;
  const canvas = h('canvas', { class: 'typed', width: '1000', height: '260', 'aria-hidden': 'true' });
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { willReadFrequently: true }));
  let drawn = 0;

  /** Draws in Dancing Script once the font is loaded; a later keystroke wins over an earlier draw. */
  async function draw() {
    const ticket = ++drawn;
    const value = input.value.trim();
    await document.fonts.load('100px "Dancing Script"', value || 'A').catch(() => /** @type {void} */ (undefined));
    if (ticket !== drawn) return false;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    if (!value) return false;
    let size = 120;
    ctx.font = `${size}px "Dancing Script", cursive`;
    const room = canvas.width - 60;
    const width = ctx.measureText(value).width;
    if (width > room) size = Math.floor((size * room) / width);
    ctx.font = `${size}px "Dancing Script", cursive`;
    ctx.fillStyle = INK;
    ctx.textBaseline = 'middle';
    ctx.fillText(value, 30, canvas.height / 2);
    return true;
  }

  return {
    id: 'type',
    label: t('browser.sign.type.tab'),
    method: 'typed',
    empty: t('browser.sign.type.empty'),
    content: [
      h('label', { for: 'typed-name' }, t('browser.sign.type.label')),
      input,
      h('p', { class: 'hint' }, t('browser.sign.type.preview')),
      canvas,
    ],
    shown: () => draw(),
    result: async () => ((await draw()) ? trimmedPng(canvas) : null),
  };
}

/** @param {HTMLElement} problem @returns {Tab} */
function uploadTab(problem) {
  const input = h('input', { id: 'upload-input', type: 'file', accept: UPLOAD_TYPES.join(','), testid: 'upload-input', onchange: pick });
  const preview = h('img', { class: 'upload-preview', alt: t('browser.sign.upload.alt'), hidden: true, testid: 'upload-preview' });
  /** @type {string | null} */
  let dataUrl = null;

  async function pick() {
    dataUrl = null;
    preview.hidden = true;
    problem.textContent = '';
    const file = input.files?.[0];
    if (!file) return;
    const refuse = (/** @type {string} */ message) => {
      problem.textContent = message;
      input.value = '';
    };
    if (!UPLOAD_TYPES.includes(file.type)) return refuse(t('browser.image.not_image', { name: file.name }));
    if (file.size > MAX_UPLOAD_BYTES)
      return refuse(t('browser.image.too_big', { name: file.name, size: (file.size / 1024 / 1024).toFixed(1) }));
    /** @type {string | null} */
    const url = await new Promise((/** @type {(url: string) => void} */ resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(/** @type {string} */ (reader.result));
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    }).catch(() => /** @type {string | null} */ (null));
    const image = new Image();
    image.src = url ?? '';
    const readable =
      url &&
      (await image.decode().then(
        () => true,
        () => false,
      ));
    if (!readable) return refuse(t('browser.image.unreadable', { name: file.name }));
    dataUrl = url;
    preview.src = url;
    preview.hidden = false;
  }

  return {
    id: 'upload',
    label: t('browser.sign.upload.tab'),
    method: 'uploaded',
    empty: t('browser.sign.upload.empty'),
    content: [h('label', { for: 'upload-input' }, t('browser.sign.upload.label')), input, preview],
    result: async () => dataUrl,
  };
}
