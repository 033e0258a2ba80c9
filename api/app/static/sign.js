// The sign page of a signer who is not a registered user: the e-mailed code (sign-code.js), then the
// document (sign-viewer.js) with its fields (sign-fields.js), this panel, the dialogs
// (sign-dialogs.js), sign and decline. Plain ES modules: the CSP allows nothing inline, so styles
// come from sign.css and element.style (never a style attribute).

import { h, nodes } from './dom.js';
import { renderVerify } from './sign-code.js';
import { ApiError, answered, api, base, clearError, fillsIn, labelOf, resetUi, root, S, say, showError, ui, view } from './sign-context.js';
import { openDeclineDialog, openSignatureDialog } from './sign-dialogs.js';
import { focusWidget, nextField } from './sign-fields.js';
import { renderPdf } from './sign-viewer.js';
import { setZoom, stepZoom, ZOOM_STEPS } from './sign-zoom.js';

const POLL_MS = 1500;
const BLOCKED_RECHECK_MS = 10_000;
/** What the signer entered, kept in this tab until their signature is on the document (a reload loses nothing). */
const DRAFT_KEY = `sign-draft:${base}`;

function saveDraft() {
  try {
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify({ signature: S.signature, initials: S.initials, values: S.values }));
  } catch {
    // Storage full or off: the entries stay on this page only.
  }
}

function restoreDraft() {
  try {
    const draft = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? 'null');
    if (!draft) return;
    S.signature ??= draft.signature ?? null;
    S.initials ??= draft.initials ?? null;
    S.values = { ...(draft.values ?? {}), ...S.values };
  } catch {
    // A draft that does not parse is dropped.
  }
}

const dropDraft = () => sessionStorage.removeItem(DRAFT_KEY);

/** The signer's latest signature was refused: why, in words, with what they can do. */
const rejectionText = (apply) =>
  `Your signature could not be applied: ${apply.error?.message ?? 'the signing step failed'} Nothing was signed; what you entered is kept, so you can sign again.`;

// ---------- the document ----------

async function openDocument() {
  clearTimeout(S.recheck);
  try {
    S.state = (await api('GET', '/state')).body;
  } catch (error) {
    if (error.status === 401) {
      root.dataset.verified = 'false';
      renderVerify(openDocument);
    }
    showError(error);
    return;
  }
  const { state } = S;
  root.classList.remove('landing');
  if (state.signer.status === 'signed') dropDraft();
  else restoreDraft();
  root.querySelector('.for').textContent = `For ${state.signer.name}, ${state.signer.role}`;
  const panel = h('aside', { class: 'panel', 'aria-labelledby': 'panel-title' });
  const pages = h('section', { class: 'pages', 'aria-label': 'Document pages' });
  resetUi({ panel, pages });
  S.zoom = 1;
  view.replaceChildren(h('div', { class: 'layout' }, panel, pages), guideBar());
  renderPanel(panel);
  refresh();
  if (state.blocked_reason) S.recheck = setTimeout(recheckBlocked, BLOCKED_RECHECK_MS);
  // A signature submitted before (this page was reloaded, or another tab): still being applied, or refused.
  if (state.signer.status === 'pending' && state.apply?.status === 'processing' && !S.busy) resumeWaiting();
  else if (state.signer.status === 'pending' && state.apply?.status === 'rejected' && state.can_sign) showError(rejectionText(state.apply));
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
      S.state.signers.map((signer) =>
        h('li', null, h('span', null, `${signer.name}, ${signer.role}`), h('span', { class: `badge ${signer.status}` }, signer.status)),
      ),
    ),
  ];
}

function downloadLink() {
  const { document } = S.state;
  if (document.status !== 'completed')
    return h(
      'a',
      { href: `${base}/document.pdf`, download: `${document.name}.pdf`, class: 'button', testid: 'download' },
      'Download the PDF',
    );
  const until = document.completed_copy_until;
  if (until && Date.parse(until) < Date.now())
    return h('p', { class: 'hint', testid: 'copy-expired' }, `The completed copy was available here until ${until.slice(0, 10)}.`);
  return [
    h(
      'a',
      { href: `${base}/document.pdf`, download: `${document.name}.pdf`, class: 'button primary', testid: 'download' },
      'Download the completed copy',
    ),
    until &&
      h(
        'p',
        { class: 'hint', testid: 'copy-until' },
        `Its last page is the certificate of completion. Available here until ${until.slice(0, 10)}.`,
      ),
  ];
}

/**
 * The phone's bottom bar (sign.css shows it on narrow screens only, fixed to the bottom of the
 * window): zoom out, the zoom (tap to fit the width again), zoom in; and for a signer who can sign,
 * "Next field", then "Sign" once every required field is done.
 */
function guideBar() {
  ui.zoomOut = h('button', { type: 'button', testid: 'zoom-out', 'aria-label': 'Zoom out', onclick: () => stepZoom(-1) }, '−');
  ui.zoomIn = h('button', { type: 'button', testid: 'zoom-in', 'aria-label': 'Zoom in', onclick: () => stepZoom(1) }, '+');
  ui.zoomFit = h('button', { type: 'button', class: 'zoom-level', testid: 'zoom-fit', onclick: () => setZoom(1) }, '100%');
  ui.barNext = h('button', { type: 'button', testid: 'bar-next', onclick: nextField }, 'Next field');
  ui.barSign = h('button', { type: 'button', class: 'primary', testid: 'bar-sign', hidden: true, onclick: signFromBar }, 'Sign');
  ui.bar = h(
    'div',
    { class: 'guide', role: 'region', 'aria-label': 'Zoom and signing steps', testid: 'guide-bar' },
    h('div', { class: 'zoom', role: 'group', 'aria-label': 'Zoom' }, ui.zoomOut, ui.zoomFit, ui.zoomIn),
    S.state.can_sign && h('div', { class: 'steps' }, ui.barNext, ui.barSign),
  );
  refreshZoom();
  return ui.bar;
}

function refreshZoom() {
  if (!ui.zoomFit) return;
  const zoom = S.zoom ?? 1;
  ui.zoomFit.textContent = `${Math.round(zoom * 100)}%`;
  ui.zoomFit.setAttribute('aria-label', `Zoom ${Math.round(zoom * 100)}%: fit the width`);
  ui.zoomOut.disabled = zoom <= ZOOM_STEPS[0];
  ui.zoomIn.disabled = zoom >= ZOOM_STEPS.at(-1);
}

/** Every field is done: the consent box if it is not ticked yet, else sign. */
function signFromBar() {
  const items = todoItems();
  if (items.length === 0) return submit();
  items[0].go();
}

/** Scrolls a control of the panel clear of the phone's bar and focuses it. */
function goTo(control) {
  control.scrollIntoView({ block: 'center', behavior: 'smooth' });
  control.focus({ preventScroll: true });
}

function renderPanel(panel) {
  const { state } = S;
  if (!state.can_sign) return renderClosedPanel(panel);
  const mine = state.widgets.filter((widget) => widget.mine);
  ui.sigPreview = h('div', { class: 'sig-preview', testid: 'signature-preview' });
  ui.sigOpen = h(
    'button',
    { type: 'button', testid: 'signature-open', onclick: () => openSignatureDialog('signature') },
    'Add your signature',
  );
  ui.todo = h('ul', { class: 'todo', testid: 'missing' });
  ui.consent = h('input', {
    type: 'checkbox',
    id: 'consent',
    testid: 'consent',
    onchange: () => {
      S.consent = ui.consent.checked;
      refresh();
    },
  });
  ui.consent.checked = S.consent;
  ui.submit = h(
    'button',
    { type: 'button', class: 'primary wide', testid: 'sign-submit', 'aria-describedby': 'todo-title', onclick: submit },
    'Sign',
  );
  const initials = mine.some((widget) => widget.type === 'initials');
  if (initials) {
    ui.initialsPreview = h('div', { class: 'sig-preview initials', testid: 'initials-preview' });
    ui.initialsOpen = h(
      'button',
      { type: 'button', testid: 'initials-open', onclick: () => openSignatureDialog('initials') },
      'Draw your initials',
    );
    ui.initialsReset = h(
      'button',
      {
        type: 'button',
        class: 'link',
        testid: 'initials-reset',
        onclick: () => {
          S.initials = null;
          refresh();
        },
      },
      'Use the letters instead',
    );
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
        h(
          'button',
          { type: 'button', class: 'danger-link', testid: 'decline-open', onclick: () => openDeclineDialog(openDocument) },
          'Decline to sign',
        ),
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
      state.document.status === 'completed'
        ? 'Everyone has signed: the document is complete.'
        : everyone
          ? 'Everyone has signed: the document is being completed.'
          : 'The other signers are asked next.'
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
  panel.replaceChildren(
    ...nodes(
      h('h2', { id: 'panel-title' }, title),
      h('p', { class: 'blocked', testid: 'closed-reason' }, text),
      extra,
      downloadLink(),
      signersList(),
    ),
  );
}

/** The remaining steps before Sign is enabled, each with a way to go there. */
function todoItems() {
  const items = [];
  if (!S.signature) items.push({ text: 'Add your signature', go: () => openSignatureDialog('signature') });
  for (const widget of S.state.widgets) {
    if (widget.unfilled && !answered(widget)) {
      items.push({ text: `Fill in “${labelOf(widget)}” (page ${widget.page})`, go: () => focusWidget(widget.id) });
    }
  }
  if (!S.consent) items.push({ text: 'Tick the box to agree to sign electronically', go: () => goTo(ui.consent), consent: true });
  return items;
}

function refresh() {
  refreshZoom();
  if (!S.state?.can_sign || !ui.submit) return;
  const letters = S.state.signer.initials;
  ui.sigPreview.replaceChildren(
    S.signature ? h('img', { src: S.signature.image, alt: 'Your signature' }) : h('span', { class: 'hint' }, 'No signature yet.'),
  );
  ui.sigOpen.textContent = S.signature ? 'Change your signature' : 'Add your signature';
  if (ui.initialsPreview) {
    ui.initialsPreview.replaceChildren(
      S.initials ? h('img', { src: S.initials, alt: 'Your initials' }) : h('span', null, `Your initials will be the letters “${letters}”.`),
    );
    ui.initialsReset.hidden = !S.initials;
  }
  for (const widget of S.state.widgets.filter((candidate) => candidate.mine)) {
    const control = ui.widgets[widget.id];
    if (!control) continue;
    if (widget.type === 'signature') control.replaceChildren(S.signature ? h('img', { src: S.signature.image, alt: '' }) : 'Sign here');
    if (widget.type === 'initials') control.replaceChildren(S.initials ? h('img', { src: S.initials, alt: '' }) : letters);
    if (widget.type === 'signature' || widget.type === 'initials')
      control.classList.toggle('done', widget.type === 'signature' ? !!S.signature : true);
  }
  const items = todoItems();
  ui.todo.replaceChildren(
    ...(items.length === 0
      ? [h('li', { class: 'ready' }, 'All set. You can sign.')]
      : items.map((item) => h('li', null, h('button', { type: 'button', class: 'link', onclick: item.go }, item.text)))),
  );
  ui.submit.disabled = S.busy || items.length > 0;
  if (ui.barSign) {
    // "Sign" joins the bar once nothing but the consent is left (the bar then goes to the box).
    ui.barSign.hidden = items.some((item) => !item.consent);
    ui.barSign.disabled = S.busy;
    ui.barSign.textContent = S.busy ? 'Signing…' : 'Sign';
  }
}

// ---------- signing ----------

function submittedValues() {
  const values = {};
  for (const widget of S.state.widgets) {
    if (!fillsIn(widget)) continue;
    if (widget.type === 'checkbox') values[widget.id] = S.values[widget.id] === true;
    else if (answered(widget)) values[widget.id] = S.values[widget.id];
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
  saveDraft();
  try {
    const body = { consent: true, signature: S.signature, values: submittedValues() };
    if (S.initials) body.initials = { image: S.initials };
    const reply = await api('POST', '/sign', body);
    if (reply.status === 202) await waitUntilSigned();
    S.busy = false;
    dropDraft();
    await openDocument();
  } catch (error) {
    S.busy = false;
    ui.panel.removeAttribute('aria-busy');
    ui.submit.textContent = 'Sign';
    say('');
    showError(error);
    markInvalid(error);
    // The session ended: confirm again; the signature and the values are kept for afterwards.
    if (error.status === 401) renderVerify(openDocument);
    else if (error.status === 409) await openDocument();
    else refresh();
  }
}

/**
 * 202: the signature is queued; the state says when it is on the document, or that it was refused
 * (then the signer sees why, with what they entered, and can sign again). The apply has a bounded
 * retry budget, so the wait ends; a failed check is tried again.
 */
async function waitUntilSigned() {
  say('Your signature is being applied. This page shows the result as soon as it is on the document…');
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    let body;
    try {
      ({ body } = await api('GET', '/state'));
    } catch (error) {
      if (error.status === 401) throw error;
      continue;
    }
    if (body.signer.status === 'signed') return;
    if (body.apply?.status === 'rejected') throw new ApiError(422, { code: body.apply.error.code, message: rejectionText(body.apply) });
    if (body.signer.status !== 'pending' || body.document.status !== 'sent') return;
  }
}

/** Opened while a signature submitted earlier is still being applied: wait for it here too. */
async function resumeWaiting() {
  S.busy = true;
  refresh();
  if (ui.submit) ui.submit.textContent = 'Signing…';
  try {
    await waitUntilSigned();
    S.busy = false;
    await openDocument();
  } catch (error) {
    S.busy = false;
    if (ui.submit) ui.submit.textContent = 'Sign';
    say('');
    showError(error);
    refresh();
  }
}

/** 422 unfilled_fields names `values.<widget id>`: mark those fields and go to the first. */
function markInvalid(error) {
  const ids = (error.details ?? []).map((detail) => /^values\.(.+)$/.exec(detail.path ?? '')?.[1]).filter(Boolean);
  for (const id of ids) ui.widgets[id]?.setAttribute('aria-invalid', 'true');
  if (ids.length > 0) focusWidget(ids[0]);
}

// ---------- start ----------

root.addEventListener('sign:change', refresh);
if (root.dataset.verified === 'true') openDocument();
else renderVerify(openDocument);
