// The sign page of a signer who is not a registered user: the e-mailed code (sign-code.js), then the
// document (sign-viewer.js) with its fields (sign-fields.js), the panel and the phone's bar
// (sign-panel.js), the dialogs (sign-dialogs.js), signing (sign-submit.js). This module opens the
// document and wires them. Plain ES modules: the CSP allows nothing inline, so styles come from
// sign.css and element.style (never a style attribute).

import { h } from './dom.js';
import { t } from './messages.js';
import { renderVerify } from './sign-code.js';
import { ApiError, fetchState, resetUi, root, S, showError, view } from './sign-context.js';
import { dropDraft, restoreDraft } from './sign-draft.js';
import { guideBar, renderPanel } from './sign-panel.js';
import { refresh } from './sign-progress.js';
import { rejectionText, resumeWaiting, signFromBar, submit } from './sign-submit.js';
import { renderPdf } from './sign-viewer.js';

const BLOCKED_RECHECK_MS = 10_000;

/** @type {import('./sign-panel.js').PanelActions} */
const actions = { reopen: openDocument, submit: () => submit(openDocument), signFromBar: () => signFromBar(openDocument) };

async function openDocument() {
  clearTimeout(S.recheck);
  try {
    S.state = await fetchState();
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
  /** @type {HTMLElement} */ (root.querySelector('.for')).textContent = t('browser.sign.for', {
    name: state.signer.name,
    role: state.signer.role,
  });
  const panel = h('aside', { class: 'panel', 'aria-labelledby': 'panel-title' });
  const pages = h('section', { class: 'pages', 'aria-label': t('browser.sign.pages') });
  resetUi({ panel, pages });
  S.zoom = 1;
  view.replaceChildren(h('div', { class: 'layout' }, panel, pages), guideBar(actions));
  renderPanel(panel, actions);
  refresh();
  if (state.blocked_reason) S.recheck = setTimeout(recheckBlocked, BLOCKED_RECHECK_MS);
  // A signature submitted before (this page was reloaded, or another tab): still being applied, or refused.
  if (state.signer.status === 'pending' && state.apply?.status === 'processing' && !S.busy) resumeWaiting(openDocument);
  else if (state.signer.status === 'pending' && state.apply?.status === 'rejected' && state.can_sign) showError(rejectionText(state.apply));
  try {
    await renderPdf(pages);
  } catch (error) {
    showError(error instanceof ApiError ? error : new Error(t('browser.sign.error.document')));
    console.error(error);
  }
}

/** Under strict order the page waits for earlier signers by itself. */
async function recheckBlocked() {
  try {
    const state = await fetchState();
    if (state.can_sign !== S.state.can_sign || state.blocked_reason !== S.state.blocked_reason) return openDocument();
  } catch {
    // A failed re-check is retried; the signer can also use "Check again".
  }
  S.recheck = setTimeout(recheckBlocked, BLOCKED_RECHECK_MS);
}

root.addEventListener('sign:change', refresh);
if (root.dataset.verified === 'true') openDocument();
else renderVerify(openDocument);
