// The sign page of a signer who is not a registered user: the e-mailed code, then the document with
// its fields, the signature dialog, sign and decline. A plain ES module: the CSP allows nothing inline,
// so styles come from sign.css and element.style (never a style attribute).

const root = document.getElementById('sign');
const base = root.dataset.base;
const alertBox = root.querySelector('[data-testid="alert"]');
const statusBox = root.querySelector('[data-testid="status"]');
const view = document.getElementById('view');

const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;
const UPLOAD_TYPES = ['image/png', 'image/jpeg'];
const INK = '#1b2a6b';
const FILLABLE = new Set(['text', 'checkbox', 'dropdown']);
const POLL_MS = 1500;
const SIGN_WAIT_MS = 120_000;
const BLOCKED_RECHECK_MS = 10_000;

/** What the signer has done so far; kept across re-renders of the state. */
const S = { state: null, signature: null, initials: null, values: {}, consent: false, busy: false, viewer: null, recheck: 0 };
/** Elements refresh() updates in place, so typing never loses focus. */
let ui = {};

// ---------- small helpers ----------

/** Children as append() takes them: nested lists flattened, absent ones (null, false) dropped. */
const nodes = (...children) => children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false);

function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'testid') el.dataset.testid = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...nodes(children));
  return el;
}

class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `The service answered ${status}. Try again in a moment.`);
    this.status = status;
    this.code = error?.code;
    this.details = error?.details ?? [];
  }
}

async function api(method, path, body) {
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { code: 'network', message: 'The service cannot be reached. Check your connection and try again.' });
  }
  const text = await response.text();
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // A proxy's HTML error page: the status alone explains it.
  }
  if (!response.ok) throw new ApiError(response.status, json.error);
  return { status: response.status, body: json };
}

function showError(error) {
  alertBox.textContent = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ApiError)) console.error(error);
}

const clearError = () => (alertBox.textContent = '');
const say = (text) => (statusBox.textContent = text);
const today = () => new Date().toISOString().slice(0, 10); // the server stamps the UTC date
const labelOf = (widget) => widget.label || widget.type[0].toUpperCase() + widget.type.slice(1);

/** The first letter of each word, upper-cased: what the server stamps when no initials image is sent. */
function initialsOf(name) {
  const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return name
    .normalize('NFC')
    .split(/\s+/u)
    .map((word) => [...graphemes.segment(word)].find((part) => /\p{L}/u.test(part.segment))?.segment ?? '')
    .join('')
    .toLocaleUpperCase();
}

function isFilled(widget, value) {
  if (widget.type === 'checkbox') return value === true;
  if (widget.type === 'dropdown') return typeof value === 'string' && (widget.options?.length ? widget.options.includes(value) : value.trim() !== '');
  return typeof value === 'string' && value.trim() !== '';
}

// ---------- step 1: the e-mailed code ----------

function renderVerify() {
  const email = root.dataset.email;
  const input = h('input', { id: 'code', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: '6', pattern: '[0-9]{6}', required: true, 'aria-describedby': 'code-help', testid: 'code-input' });
  const confirm = h('button', { type: 'submit', class: 'primary', testid: 'verify' }, 'Confirm');
  const resend = h('button', { type: 'button', class: 'link', testid: 'resend-code', onclick: () => send(resend) }, 'Send a new code');
  const form = h(
    'form',
    { class: 'code-form', hidden: true, novalidate: true, onsubmit: (event) => (event.preventDefault(), verify()) },
    h('label', { for: 'code' }, 'Code from the e-mail'),
    h('p', { id: 'code-help', class: 'hint' }, '6 digits. It works once and for a few minutes.'),
    h('div', { class: 'row' }, input, confirm),
    resend,
  );
  const sendButton = h('button', { type: 'button', class: 'primary', testid: 'send-code', onclick: () => send(sendButton) }, 'Send code');

  async function send(button) {
    clearError();
    button.disabled = true;
    try {
      const { body } = await api('POST', '/code');
      say(`We sent a code to ${body.sent_to}. It can take a minute to arrive.`);
      sendButton.hidden = true;
      form.hidden = false;
      input.value = '';
      input.focus();
    } catch (error) {
      showError(error);
    } finally {
      button.disabled = false;
    }
  }

  async function verify() {
    clearError();
    const code = input.value.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(code)) {
      input.setAttribute('aria-invalid', 'true');
      showError('Enter the 6 digits from the e-mail.');
      input.focus();
      return;
    }
    confirm.disabled = true;
    try {
      await api('POST', '/verify', { code });
      root.dataset.verified = 'true';
      say('Thank you, your e-mail address is confirmed.');
      await openDocument();
    } catch (error) {
      input.setAttribute('aria-invalid', 'true');
      showError(error);
      input.select();
    } finally {
      confirm.disabled = false;
    }
  }

  view.replaceChildren(
    h(
      'section',
      { class: 'card verify', 'aria-labelledby': 'verify-title' },
      h('h2', { id: 'verify-title' }, 'Confirm it is you'),
      h('p', null, 'To open this document, we e-mail a 6-digit code to ', h('strong', null, email), '.'),
      sendButton,
      form,
    ),
  );
}

// ---------- step 2: the document ----------

async function openDocument() {
  clearTimeout(S.recheck);
  try {
    S.state = (await api('GET', '/state')).body;
  } catch (error) {
    if (error.status === 401) {
      root.dataset.verified = 'false';
      renderVerify();
    }
    showError(error);
    return;
  }
  const { state } = S;
  root.querySelector('.for').textContent = `For ${state.signer.name}, ${state.signer.role}`;
  const panel = h('aside', { class: 'panel', 'aria-labelledby': 'panel-title' });
  const pages = h('section', { class: 'pages', 'aria-label': 'Document pages' });
  view.replaceChildren(h('div', { class: 'layout' }, panel, pages));
  ui = { widgets: {}, panel };
  renderPanel(panel);
  refresh();
  if (state.blocked_reason) S.recheck = setTimeout(recheckBlocked, BLOCKED_RECHECK_MS);
  try {
    await renderPdf(pages);
  } catch (error) {
    showError(error instanceof ApiError ? error : new Error('The document could not be shown. Reload the page to try again.'));
    console.error(error);
  }
}

/** Under strict order the page waits for earlier signers by itself. */
async function recheckBlocked() {
  try {
    const { body } = await api('GET', '/state');
    if (body.can_sign !== S.state.can_sign || body.blocked_reason !== S.state.blocked_reason) return openDocument();
  } catch {
    // A failed re-check is retried; the signer can also use "Check again".
  }
  S.recheck = setTimeout(recheckBlocked, BLOCKED_RECHECK_MS);
}

function signersList() {
  return [
    h('h3', null, 'Signers'),
    h(
      'ul',
      { class: 'signers', testid: 'signers' },
      S.state.signers.map((signer) => h('li', null, h('span', null, `${signer.name}, ${signer.role}`), h('span', { class: `badge ${signer.status}` }, signer.status))),
    ),
  ];
}

const downloadLink = () => h('a', { href: `${base}/document.pdf`, download: `${S.state.document.name}.pdf`, class: 'button', testid: 'download' }, 'Download the PDF');

function renderPanel(panel) {
  const { state } = S;
  if (!state.can_sign) return renderClosedPanel(panel);
  const mine = state.widgets.filter((widget) => widget.mine);
  ui.sigPreview = h('div', { class: 'sig-preview', testid: 'signature-preview' });
  ui.sigOpen = h('button', { type: 'button', testid: 'signature-open', onclick: () => openSignatureDialog('signature') }, 'Add your signature');
  ui.todo = h('ul', { class: 'todo', testid: 'missing' });
  ui.consent = h('input', { type: 'checkbox', id: 'consent', testid: 'consent', onchange: () => ((S.consent = ui.consent.checked), refresh()) });
  ui.consent.checked = S.consent;
  ui.submit = h('button', { type: 'button', class: 'primary wide', testid: 'sign-submit', 'aria-describedby': 'todo-title', onclick: submit }, 'Sign');
  const initials = mine.some((widget) => widget.type === 'initials');
  if (initials) {
    ui.initialsPreview = h('div', { class: 'sig-preview initials', testid: 'initials-preview' });
    ui.initialsOpen = h('button', { type: 'button', testid: 'initials-open', onclick: () => openSignatureDialog('initials') }, 'Draw your initials');
    ui.initialsReset = h('button', { type: 'button', class: 'link', testid: 'initials-reset', onclick: () => ((S.initials = null), refresh()) }, 'Use the letters instead');
  }
  panel.replaceChildren(
    ...nodes(
      h('h2', { id: 'panel-title' }, 'Sign this document'),
      h('p', { class: 'hint' }, 'Read the document, fill in your fields, add your signature, then sign.'),
      h('h3', null, 'Your signature'),
      ui.sigPreview,
      ui.sigOpen,
      initials && [h('h3', null, 'Your initials'), ui.initialsPreview, h('div', { class: 'row' }, ui.initialsOpen, ui.initialsReset)],
      h('h3', { id: 'todo-title' }, 'Before you sign'),
      ui.todo,
      h('div', { class: 'consent' }, ui.consent, h('label', { for: 'consent' }, state.consent_text)),
      ui.submit,
      h(
        'div',
        { class: 'row secondary' },
        h('button', { type: 'button', testid: 'next-field', onclick: nextField }, 'Next field'),
        h('button', { type: 'button', class: 'danger-link', testid: 'decline-open', onclick: openDeclineDialog }, 'Decline to sign'),
      ),
      downloadLink(),
      signersList(),
    ),
  );
}

/** Why this signer cannot sign now; the document is still shown below it. */
function renderClosedPanel(panel) {
  const { state } = S;
  let title = 'You cannot sign this document';
  let text = `This document can no longer be signed (it is ${state.document.status}).`;
  let extra = null;
  if (state.signer.status === 'signed') {
    title = 'Signed';
    const everyone = state.signers.every((signer) => signer.status === 'signed');
    text = `Signed. Your signature was applied${state.signer.signed_at ? ` on ${state.signer.signed_at.slice(0, 10)}` : ''}. ${
      state.document.status === 'completed' ? 'Everyone has signed: the document is complete.' : everyone ? 'Everyone has signed: the document is being completed.' : 'The other signers are asked next.'
    }`;
  } else if (state.signer.status === 'declined') {
    title = 'Declined';
    text = 'You declined to sign this document.';
  } else if (state.document.status === 'completed') {
    text = 'This document is already complete.';
  } else if (state.document.status === 'declined') {
    text = 'Another signer declined this document, so it can no longer be signed.';
  } else if (state.blocked_reason) {
    title = 'Not your turn yet';
    text = `${state.blocked_reason} This page checks again by itself.`;
    extra = h('button', { type: 'button', testid: 'recheck', onclick: openDocument }, 'Check again');
  }
  say(text);
  panel.replaceChildren(...nodes(h('h2', { id: 'panel-title' }, title), h('p', { class: 'blocked', testid: 'closed-reason' }, text), extra, downloadLink(), signersList()));
}

/** The remaining steps before Sign is enabled, each with a way to go there. */
function todoItems() {
  const items = [];
  if (!S.signature) items.push({ text: 'Add your signature', go: () => openSignatureDialog('signature') });
  for (const widget of S.state.widgets) {
    if (widget.mine && widget.required && FILLABLE.has(widget.type) && !isFilled(widget, S.values[widget.id])) {
      items.push({ text: `Fill in “${labelOf(widget)}” (page ${widget.page})`, go: () => focusWidget(widget.id) });
    }
  }
  if (!S.consent) items.push({ text: 'Tick the box to agree to sign electronically', go: () => ui.consent.focus() });
  return items;
}

function refresh() {
  if (!S.state?.can_sign || !ui.submit) return;
  const name = S.state.signer.name;
  const letters = initialsOf(name);
  ui.sigPreview.replaceChildren(S.signature ? h('img', { src: S.signature.image, alt: 'Your signature' }) : h('span', { class: 'hint' }, 'No signature yet.'));
  ui.sigOpen.textContent = S.signature ? 'Change your signature' : 'Add your signature';
  if (ui.initialsPreview) {
    ui.initialsPreview.replaceChildren(S.initials ? h('img', { src: S.initials, alt: 'Your initials' }) : h('span', null, `Your initials will be the letters “${letters}”.`));
    ui.initialsReset.hidden = !S.initials;
  }
  for (const widget of S.state.widgets.filter((candidate) => candidate.mine)) {
    const control = ui.widgets[widget.id];
    if (!control) continue;
    if (widget.type === 'signature') control.replaceChildren(S.signature ? h('img', { src: S.signature.image, alt: '' }) : 'Sign here');
    if (widget.type === 'initials') control.replaceChildren(S.initials ? h('img', { src: S.initials, alt: '' }) : letters);
    if (widget.type === 'signature' || widget.type === 'initials') control.classList.toggle('done', widget.type === 'signature' ? !!S.signature : true);
  }
  const items = todoItems();
  ui.todo.replaceChildren(
    ...(items.length === 0
      ? [h('li', { class: 'ready' }, 'All set. You can sign.')]
      : items.map((item) => h('li', null, h('button', { type: 'button', class: 'link', onclick: item.go }, item.text)))),
  );
  ui.submit.disabled = S.busy || items.length > 0;
}

// ---------- the PDF and its fields ----------

let pdfjsModule;
async function loadPdfjs() {
  if (!pdfjsModule) {
    pdfjsModule = await import('/static/pdfjs/pdf.min.mjs');
    pdfjsModule.GlobalWorkerOptions.workerSrc = '/static/pdfjs/pdf.worker.min.mjs';
  }
  return pdfjsModule;
}

async function renderPdf(container) {
  S.viewer?.destroy();
  const viewer = createViewer();
  S.viewer = viewer;
  container.append(h('p', { class: 'hint loading', testid: 'pdf-loading' }, 'Loading the document…'));
  const pdfjs = await loadPdfjs();
  const response = await fetch(`${base}/document.pdf`, { credentials: 'same-origin' });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new ApiError(response.status, body.error);
  }
  const data = new Uint8Array(await response.arrayBuffer());
  // No eval under the page's CSP; pdf.js then interprets fonts instead of compiling them.
  const pdf = await pdfjs.getDocument({
    data,
    isEvalSupported: false,
    standardFontDataUrl: '/static/pdfjs/standard_fonts/',
    wasmUrl: '/static/pdfjs/wasm/',
    cMapUrl: '/static/pdfjs/cmaps/',
    cMapPacked: true,
  }).promise;
  if (viewer.destroyed) return pdf.destroy();
  viewer.pdf = pdf;
  container.replaceChildren();
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    if (viewer.destroyed) return;
    const { width, height } = page.getViewport({ scale: 1 });
    const overlay = h('div', { class: 'overlay' }, S.state.widgets.filter((widget) => widget.page === number).map((widget) => widgetElement(widget, width, height)));
    const canvas = h('canvas', { 'aria-hidden': 'true' });
    const el = h('div', { class: 'page', role: 'group', 'aria-label': `Page ${number} of ${pdf.numPages}`, testid: `page-${number}` }, canvas, overlay);
    el.style.aspectRatio = `${width} / ${height}`;
    container.append(el);
    viewer.add({ number, page, width, height, el, canvas, renderedWidth: 0 });
  }
  refresh();
  if (S.state.can_sign) say(`The document has ${pdf.numPages} page${pdf.numPages === 1 ? '' : 's'}. Your fields are highlighted.`);
}

/** Renders pages near the viewport one at a time, so a long document never blocks the page. */
function createViewer() {
  const queue = new Set();
  const slots = new Map();
  let running = false;
  const viewer = { destroyed: false, pdf: null };

  const visible = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const slot = slots.get(entry.target);
        slot.near = entry.isIntersecting;
        if (slot.near) queue.add(slot);
      }
      pump();
    },
    { rootMargin: '800px 0px' },
  );
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const slot = slots.get(entry.target);
      const cssWidth = entry.target.clientWidth;
      // Widget text scales with the page: scale = CSS width / width in points.
      entry.target.style.setProperty('--scale', String(cssWidth / slot.width));
      if (slot.renderedWidth && Math.abs(cssWidth - slot.renderedWidth) / slot.renderedWidth > 0.2) queue.add(slot);
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

  async function renderSlot(slot) {
    const cssWidth = slot.el.clientWidth;
    if (!cssWidth) return;
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
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

/** One widget over its page, placed in percentages of the page so it follows any width. */
function widgetElement(widget, pageWidth, pageHeight) {
  const { state } = S;
  const owner = state.signers.find((signer) => signer.role === widget.role);
  // Once a role has signed, its marks are in the PDF itself; an overlay would only hide them.
  if (owner?.status === 'signed') return null;
  const editable = widget.mine && state.can_sign;
  const el = editable ? editableWidget(widget) : readOnlyWidget(widget);
  el.classList.add('widget', `widget-${widget.type}`, widget.mine ? 'mine' : 'theirs');
  if (widget.required) el.classList.add('required');
  el.style.left = `${(widget.x / pageWidth) * 100}%`;
  el.style.top = `${(widget.y / pageHeight) * 100}%`;
  el.style.width = `${(widget.width / pageWidth) * 100}%`;
  el.style.height = `${(widget.height / pageHeight) * 100}%`;
  // Another signer's box only names its owner: small print, so it fits a box of any size.
  const points = widget.mine ? Math.min(widget.height * 0.55, 14) : Math.min(widget.height * 0.4, 8);
  el.style.fontSize = `calc(var(--scale, 1) * ${Math.max(5, points).toFixed(1)}px)`;
  return el;
}

function readOnlyWidget(widget) {
  const { signer } = S.state;
  let text = `${labelOf(widget)}${widget.mine ? '' : ` · ${widget.role}`}`;
  if (widget.mine && widget.type === 'name') text = signer.name;
  if (widget.mine && widget.type === 'email') text = signer.email;
  if (widget.mine && widget.type === 'date') text = today();
  if (widget.mine && widget.type === 'initials') text = initialsOf(signer.name);
  return h('div', { testid: `widget-${widget.id}`, title: widget.mine ? labelOf(widget) : `${labelOf(widget)} for ${widget.role}` }, text);
}

function editableWidget(widget) {
  const { signer } = S.state;
  const label = labelOf(widget);
  const remember = (value) => {
    S.values[widget.id] = value;
    ui.widgets[widget.id]?.removeAttribute('aria-invalid');
    refresh();
  };
  let control;
  let box;
  switch (widget.type) {
    case 'signature':
    case 'initials':
      control = h('button', { type: 'button', 'aria-label': `${label}: ${widget.type === 'signature' ? 'add your signature' : 'your initials'}`, onclick: () => openSignatureDialog(widget.type) });
      break;
    case 'text':
      control = h('input', { type: 'text', maxlength: '1000', 'aria-label': label, required: widget.required, placeholder: label, oninput: () => remember(control.value) });
      control.value = S.values[widget.id] ?? '';
      break;
    case 'checkbox':
      control = h('input', { type: 'checkbox', 'aria-label': label, required: widget.required, onchange: () => remember(control.checked) });
      control.checked = S.values[widget.id] === true;
      // The label widens the tap target of a checkbox only a few points wide.
      box = h('label', null, control);
      break;
    case 'dropdown':
      control = h(
        'select',
        { 'aria-label': label, required: widget.required, onchange: () => remember(control.value) },
        h('option', { value: '' }, `${label}…`),
        (widget.options ?? []).map((option) => h('option', { value: option }, option)),
      );
      control.value = S.values[widget.id] ?? '';
      break;
    default:
      control = h('div', { title: label }, widget.type === 'name' ? signer.name : widget.type === 'email' ? signer.email : today());
  }
  control.dataset.testid = `widget-${widget.id}`;
  ui.widgets[widget.id] = control;
  return box ?? control;
}

function focusWidget(id) {
  const control = ui.widgets[id];
  if (!control) return showError('The document is still loading; try again in a moment.');
  control.scrollIntoView({ block: 'center', behavior: 'smooth' });
  control.focus({ preventScroll: true });
}

/** The next of the signer's fields, in reading order, that still needs something. */
function nextField() {
  const own = S.state.widgets
    .filter((widget) => widget.mine && (FILLABLE.has(widget.type) || widget.type === 'signature'))
    .sort((a, b) => a.page - b.page || a.y - b.y || a.x - b.x);
  const pending = own.filter((widget) => (widget.type === 'signature' ? !S.signature : !isFilled(widget, S.values[widget.id])));
  const list = pending.length > 0 ? pending : own;
  const current = list.findIndex((widget) => ui.widgets[widget.id] === document.activeElement);
  const next = list[(current + 1) % list.length];
  if (next) focusWidget(next.id);
  else ui.consent.focus();
}

// ---------- signing ----------

function submittedValues() {
  const values = {};
  for (const widget of S.state.widgets) {
    if (!widget.mine || !FILLABLE.has(widget.type)) continue;
    const value = S.values[widget.id];
    if (widget.type === 'checkbox') values[widget.id] = value === true;
    else if (typeof value === 'string' && value.trim() !== '') values[widget.id] = value.trim();
  }
  return values;
}

async function submit() {
  if (S.busy || todoItems().length > 0) return;
  S.busy = true;
  clearError();
  refresh();
  ui.submit.textContent = 'Signing…';
  ui.panel.setAttribute('aria-busy', 'true');
  say('Signing the document. This can take a few seconds…');
  try {
    const body = { consent: true, signature: S.signature, values: submittedValues() };
    if (S.initials) body.initials = { image: S.initials };
    const reply = await api('POST', '/sign', body);
    if (reply.status === 202) await waitUntilSigned();
    S.busy = false;
    await openDocument();
  } catch (error) {
    S.busy = false;
    ui.panel.removeAttribute('aria-busy');
    ui.submit.textContent = 'Sign';
    say('');
    showError(error);
    markInvalid(error);
    // The session ended: confirm again; the signature and the values are kept for afterwards.
    if (error.status === 401) renderVerify();
    else if (error.status === 409) await openDocument();
    else refresh();
  }
}

/** 202: the signature is queued; the state says when it is on the document. */
async function waitUntilSigned() {
  const until = Date.now() + SIGN_WAIT_MS;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const { body } = await api('GET', '/state');
    if (body.signer.status === 'signed') return;
  }
  throw new Error('Your signature is still being applied. Reload this page in a minute to see the result.');
}

/** 422 unfilled_fields names `values.<widget id>`: mark those fields and go to the first. */
function markInvalid(error) {
  const ids = (error.details ?? []).map((detail) => /^values\.(.+)$/.exec(detail.path ?? '')?.[1]).filter(Boolean);
  for (const id of ids) ui.widgets[id]?.setAttribute('aria-invalid', 'true');
  if (ids.length > 0) focusWidget(ids[0]);
}

// ---------- dialogs ----------

function modal(titleText, testid, ...content) {
  const titleId = `${testid}-title`;
  const dialog = h('dialog', { class: 'modal', 'aria-labelledby': titleId, testid }, h('h2', { id: titleId }, titleText), ...content);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

function openDeclineDialog() {
  const reason = h('textarea', { id: 'decline-reason', rows: '3', maxlength: '1000', testid: 'decline-reason' });
  const problem = h('p', { class: 'dialog-alert', role: 'alert', testid: 'dialog-alert' });
  const confirm = h('button', { type: 'button', class: 'danger', testid: 'decline-confirm', onclick: decline }, 'Decline');
  const dialog = modal(
    'Decline to sign?',
    'decline-dialog',
    h('p', null, 'The sender is told that you declined, and nobody can sign this document afterwards.'),
    h('label', { for: 'decline-reason' }, 'Reason (optional)'),
    reason,
    problem,
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'), confirm),
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
      await openDocument();
    } catch (error) {
      problem.textContent = error.message;
      confirm.disabled = false;
    }
  }
}

/** Draw, Type or Upload; kind 'initials' makes the initials image instead of the signature. */
function openSignatureDialog(kind) {
  const signature = kind === 'signature';
  const typedText = signature ? S.state.signer.name : initialsOf(S.state.signer.name);
  const problem = h('p', { class: 'dialog-alert', role: 'alert', testid: 'dialog-alert' });
  const tabs = [drawTab(signature), typeTab(typedText), uploadTab(problem)];
  let active = 0;

  const tabButtons = tabs.map((tab, index) =>
    h('button', { type: 'button', role: 'tab', id: `tab-${tab.id}`, 'aria-controls': `panel-${tab.id}`, testid: `tab-${tab.id}`, onclick: () => select(index) }, tab.label),
  );
  const panels = tabs.map((tab) => h('div', { role: 'tabpanel', id: `panel-${tab.id}`, 'aria-labelledby': `tab-${tab.id}`, class: 'tabpanel' }, tab.content));
  const tablist = h('div', { role: 'tablist', 'aria-label': 'How to make it', class: 'tabs', onkeydown: arrows }, tabButtons);
  const apply = h('button', { type: 'button', class: 'primary', testid: 'signature-apply', onclick: use }, signature ? 'Use this signature' : 'Use these initials');
  const dialog = modal(
    signature ? 'Add your signature' : 'Add your initials',
    'signature-dialog',
    tablist,
    panels,
    problem,
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'), apply),
  );
  select(0);

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

  function arrows(event) {
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
      if (!image) return void (problem.textContent = tabs[active].empty);
      if (signature) S.signature = { method: tabs[active].method, image };
      else S.initials = image;
      dialog.close();
      say(signature ? 'Signature added.' : 'Initials added.');
      refresh();
    } finally {
      apply.disabled = false;
    }
  }
}

function drawTab(signature) {
  const canvas = h('canvas', { class: 'pad', width: '1000', height: '300', role: 'img', 'aria-label': 'Drawing area. To sign with the keyboard, use the Type tab.', testid: 'draw-canvas' });
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  let inked = false;
  let last = null;
  let mid = null;

  const point = (event) => {
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
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!last) return;
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
  const end = () => (last = mid = null);
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);

  const clear = () => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    inked = false;
  };
  return {
    id: 'draw',
    label: 'Draw',
    method: 'drawn',
    empty: signature ? 'Draw your signature in the box first.' : 'Draw your initials in the box first.',
    content: [
      h('p', { class: 'hint' }, 'Draw with your mouse, finger or pen.'),
      canvas,
      h('button', { type: 'button', class: 'link', testid: 'draw-clear', onclick: clear }, 'Clear'),
    ],
    result: async () => (inked ? trimmedPng(canvas) : null),
  };
}

function typeTab(text) {
  const input = h('input', { id: 'typed-name', type: 'text', maxlength: '100', autocomplete: 'off', testid: 'typed-name', oninput: () => draw() });
  input.value = text;
  const canvas = h('canvas', { class: 'typed', width: '1000', height: '260', 'aria-hidden': 'true' });
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  let drawn = 0;

  /** Draws in Dancing Script once the font is loaded; a later keystroke wins over an earlier draw. */
  async function draw() {
    const ticket = ++drawn;
    const value = input.value.trim();
    await document.fonts.load('100px "Dancing Script"', value || 'A').catch(() => undefined);
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
    label: 'Type',
    method: 'typed',
    empty: 'Type your name first.',
    content: [h('label', { for: 'typed-name' }, 'Your name as you sign it'), input, h('p', { class: 'hint' }, 'Preview'), canvas],
    shown: () => draw(),
    result: async () => ((await draw()) ? trimmedPng(canvas) : null),
  };
}

function uploadTab(problem) {
  const input = h('input', { id: 'upload-input', type: 'file', accept: UPLOAD_TYPES.join(','), testid: 'upload-input', onchange: pick });
  const preview = h('img', { class: 'upload-preview', alt: 'The chosen image', hidden: true, testid: 'upload-preview' });
  let dataUrl = null;

  async function pick() {
    dataUrl = null;
    preview.hidden = true;
    problem.textContent = '';
    const file = input.files?.[0];
    if (!file) return;
    const refuse = (message) => {
      problem.textContent = message;
      input.value = '';
    };
    if (!UPLOAD_TYPES.includes(file.type)) return refuse(`“${file.name}” is not a PNG or JPEG image. Choose a .png or .jpg file.`);
    if (file.size > MAX_UPLOAD_BYTES) return refuse(`“${file.name}” is ${(file.size / 1024 / 1024).toFixed(1)} MB; the largest image you can use is 2 MB.`);
    const url = await new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    }).catch(() => null);
    const image = new Image();
    image.src = url ?? '';
    const readable = url && (await image.decode().then(() => true, () => false));
    if (!readable) return refuse(`“${file.name}” could not be read as an image.`);
    dataUrl = url;
    preview.src = url;
    preview.hidden = false;
  }

  return {
    id: 'upload',
    label: 'Upload',
    method: 'uploaded',
    empty: 'Choose a PNG or JPEG image first.',
    content: [h('label', { for: 'upload-input' }, 'An image of your signature: PNG or JPEG, up to 2 MB'), input, preview],
    result: async () => dataUrl,
  };
}

/** The ink only: transparent margins cut away, a few pixels kept around it. */
function trimmedPng(canvas) {
  const { width, height } = canvas;
  const { data } = canvas.getContext('2d').getImageData(0, 0, width, height);
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
  out.getContext('2d').drawImage(canvas, left, top, w, hgt, margin, margin, w, hgt);
  return out.toDataURL('image/png');
}

// ---------- start ----------

if (root.dataset.verified === 'true') openDocument();
else renderVerify();
