// Signing: the signature, the values and the consent posted, then the wait while the signature is
// applied (202), or why it was refused, with what the signer entered kept for another try.

import { t } from './messages.js';
import { renderVerify } from './sign-code.js';
import { ApiError, answered, api, clearError, fetchState, fillsIn, S, say, showError, ui } from './sign-context.js';
import { dropDraft, saveDraft } from './sign-draft.js';
import { focusWidget } from './sign-fields.js';
import { refresh, todoItems } from './sign-progress.js';

/** @typedef {import('../../../activities/signers/wire').SignApplyState} SignApplyState */
/** @typedef {import('../../../activities/signers/wire').SignSubmitAnswer} SignSubmitAnswer */

const POLL_MS = 1500;

/** The signer's latest signature was refused: why, in words, with what they can do. @param {SignApplyState} apply */
export const rejectionText = (apply) => t('browser.sign.rejected', { reason: apply.error?.message ?? t('browser.sign.rejected.unknown') });

function submittedValues() {
  /** @type {Record<string, string | boolean>} */
  const values = {};
  for (const widget of S.state.widgets) {
    if (!fillsIn(widget)) continue;
    if (widget.type === 'checkbox') values[widget.id] = S.values[widget.id] === true;
    else if (answered(widget)) values[widget.id] = S.values[widget.id];
  }
  return values;
}

/**
 * Signs once nothing is left to do; `reopen` shows the document again afterwards (signed, or as it now is).
 * @param {() => Promise<void>} reopen
 */
export async function submit(reopen) {
  if (S.busy || todoItems().length > 0) return;
  S.busy = true;
  clearError();
  refresh();
  ui.submit.textContent = t('browser.sign.submitting');
  ui.panel.setAttribute('aria-busy', 'true');
  say(t('browser.sign.submitting.status'));
  saveDraft();
  try {
    /** @type {{ consent: true, signature: import('./sign-context.js').Signature | null, values: Record<string, string | boolean>, initials?: { image: string } }} */
    const body = { consent: true, signature: S.signature, values: submittedValues() };
    if (S.initials) body.initials = { image: S.initials };
    /** @type {{ status: number, body: SignSubmitAnswer }} */
    const reply = await api('POST', '/sign', body);
    if (reply.status === 202) await waitUntilSigned();
    S.busy = false;
    dropDraft();
    await reopen();
  } catch (error) {
    S.busy = false;
    ui.panel.removeAttribute('aria-busy');
    ui.submit.textContent = t('browser.sign.submit');
    say('');
    showError(error);
    markInvalid(error);
    // The session ended: confirm again; the signature and the values are kept for afterwards.
    if (error.status === 401) renderVerify(reopen);
    else if (error.status === 409) await reopen();
    else refresh();
  }
}

/** The phone bar's Sign: every field is done; the consent box if it is not ticked yet, else sign. @param {() => Promise<void>} reopen */
export function signFromBar(reopen) {
  const items = todoItems();
  if (items.length === 0) return submit(reopen);
  items[0].go();
}

/**
 * 202: the signature is queued; the state says when it is on the document, or that it was refused
 * (then the signer sees why, with what they entered, and can sign again). The apply has a bounded
 * retry budget, so the wait ends; a failed check is tried again.
 */
async function waitUntilSigned() {
  say(t('browser.sign.applying'));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    let state;
    try {
      state = await fetchState();
    } catch (error) {
      if (error.status === 401) throw error;
      continue;
    }
    if (state.signer.status === 'signed') return;
    if (state.apply?.status === 'rejected')
      throw new ApiError(422, { code: /** @type {{ code: string }} */ (state.apply.error).code, message: rejectionText(state.apply) });
    if (state.signer.status !== 'pending' || state.document.status !== 'sent') return;
  }
}

/** Opened while a signature submitted earlier is still being applied: wait for it here too. @param {() => Promise<void>} reopen */
export async function resumeWaiting(reopen) {
  S.busy = true;
  refresh();
  if (ui.submit) ui.submit.textContent = t('browser.sign.submitting');
  try {
    await waitUntilSigned();
    S.busy = false;
    await reopen();
  } catch (error) {
    S.busy = false;
    if (ui.submit) ui.submit.textContent = t('browser.sign.submit');
    say('');
    showError(error);
    refresh();
  }
}

/**
 * 422 unfilled_fields names `values.<widget id>`: mark those fields and go to the first.
 * @param {{ details?: { path?: string }[] }} error
 */
function markInvalid(error) {
  const ids = /** @type {string[]} */ (
    (error.details ?? []).map((detail) => /^values\.(.+)$/.exec(detail.path ?? '')?.[1]).filter(Boolean)
  );
  for (const id of ids) ui.widgets[id]?.setAttribute('aria-invalid', 'true');
  if (ids.length > 0) focusWidget(ids[0]);
}
