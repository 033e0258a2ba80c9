// What is left before the signer can sign (the panel's list, the phone bar's Sign), and refresh(),
// which shows the signer's progress in place: the previews, their fields, the list, the buttons.

import { h } from './dom.js';
import { t } from './messages.js';
import { answered, labelOf, S, ui } from './sign-context.js';
import { openSignatureDialog } from './sign-dialogs.js';
import { focusWidget } from './sign-fields.js';
import { refreshZoom } from './sign-zoom.js';

/**
 * @typedef {{ text: string, go: () => unknown, consent?: boolean }} TodoItem
 */

/** Scrolls a control of the panel clear of the phone's bar and focuses it. */
function goTo(/** @type {HTMLElement} */ control) {
  control.scrollIntoView({ block: 'center', behavior: 'smooth' });
  control.focus({ preventScroll: true });
}

/** The remaining steps before Sign is enabled, each with a way to go there. @returns {TodoItem[]} */
export function todoItems() {
  /** @type {TodoItem[]} */
  const items = [];
  if (!S.signature) items.push({ text: t('browser.sign.signature.add'), go: () => openSignatureDialog('signature') });
  for (const widget of S.state.widgets) {
    if (widget.unfilled && !answered(widget)) {
      items.push({ text: t('browser.sign.todo.fill', { label: labelOf(widget), page: widget.page }), go: () => focusWidget(widget.id) });
    }
  }
  if (!S.consent) items.push({ text: t('browser.sign.todo.consent'), go: () => goTo(ui.consent), consent: true });
  return items;
}

export function refresh() {
  refreshZoom();
  if (!S.state?.can_sign || !ui.submit) return;
  const letters = S.state.signer.initials;
  ui.sigPreview.replaceChildren(
    S.signature
      ? h('img', { src: S.signature.image, alt: t('browser.sign.signature.alt') })
      : h('span', { class: 'hint' }, t('browser.sign.signature.none')),
  );
  ui.sigOpen.textContent = t(S.signature ? 'browser.sign.signature.change' : 'browser.sign.signature.add');
  if (ui.initialsPreview) {
    ui.initialsPreview.replaceChildren(
      S.initials
        ? h('img', { src: S.initials, alt: t('browser.sign.initials.alt') })
        : h('span', null, t('browser.sign.initials.will_be', { letters })),
    );
    ui.initialsReset.hidden = !S.initials;
  }
  for (const widget of S.state.widgets.filter((candidate) => candidate.mine)) {
    const control = ui.widgets[widget.id];
    if (!control) continue;
    if (widget.type === 'signature')
      control.replaceChildren(S.signature ? h('img', { src: S.signature.image, alt: '' }) : t('browser.sign.field.sign_here'));
    if (widget.type === 'initials') control.replaceChildren(S.initials ? h('img', { src: S.initials, alt: '' }) : letters);
    if (widget.type === 'signature' || widget.type === 'initials')
      control.classList.toggle('done', widget.type === 'signature' ? !!S.signature : true);
  }
  const items = todoItems();
  ui.todo.replaceChildren(
    ...(items.length === 0
      ? [h('li', { class: 'ready' }, t('browser.sign.todo.ready'))]
      : items.map((item) => h('li', null, h('button', { type: 'button', class: 'link', onclick: item.go }, item.text)))),
  );
  ui.submit.disabled = S.busy || items.length > 0;
  if (ui.barSign) {
    // "Sign" joins the bar once nothing but the consent is left (the bar then goes to the box).
    ui.barSign.hidden = items.some((item) => !item.consent);
    ui.barSign.disabled = S.busy;
    ui.barSign.textContent = t(S.busy ? 'browser.sign.submitting' : 'browser.sign.submit');
  }
}
