// The sign page's panel beside the document (what to do, the signature, the consent, Sign, Decline;
// or why this signer cannot sign now), the download, the signers, and the phone's bottom bar.

import { h, nodes } from './dom.js';
import { t } from './messages.js';
import { base, S, say, ui } from './sign-context.js';
import { openDeclineDialog, openSignatureDialog } from './sign-dialogs.js';
import { nextField } from './sign-fields.js';
import { refresh } from './sign-progress.js';
import { refreshZoom, setZoom, stepZoom } from './sign-zoom.js';

/** What the panel's buttons do beyond it (sign.js): open the document again, sign, sign from the phone's bar. */
/** @typedef {{ reopen: () => Promise<void>, submit: () => unknown, signFromBar: () => unknown }} PanelActions */

function signersList() {
  return [
    h('h3', null, t('browser.sign.signers')),
    h(
      'ul',
      { class: 'signers', testid: 'signers' },
      S.state.signers.map((signer) =>
        h(
          'li',
          null,
          h('span', null, t('browser.sign.signer', { name: signer.name, role: signer.role })),
          h('span', { class: `badge ${signer.status}` }, t(`browser.sign.status.${signer.status}`)),
        ),
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
      t('browser.sign.download'),
    );
  const until = document.completed_copy_until;
  if (until && Date.parse(until) < Date.now())
    return h('p', { class: 'hint', testid: 'copy-expired' }, t('browser.sign.download.expired', { day: until.slice(0, 10) }));
  return [
    h(
      'a',
      { href: `${base}/document.pdf`, download: `${document.name}.pdf`, class: 'button primary', testid: 'download' },
      t('browser.sign.download.completed'),
    ),
    until && h('p', { class: 'hint', testid: 'copy-until' }, t('browser.sign.download.until', { day: until.slice(0, 10) })),
  ];
}

/**
 * The phone's bottom bar (sign.css shows it on narrow screens only, fixed to the bottom of the
 * window): zoom out, the zoom (tap to fit the width again), zoom in; and for a signer who can sign,
 * "Next field", then "Sign" once every required field is done.
 * @param {PanelActions} actions
 */
export function guideBar(actions) {
  ui.zoomOut = h(
    'button',
    { type: 'button', testid: 'zoom-out', 'aria-label': t('browser.sign.zoom.out'), onclick: () => stepZoom(-1) },
    '−',
  );
  ui.zoomIn = h('button', { type: 'button', testid: 'zoom-in', 'aria-label': t('browser.sign.zoom.in'), onclick: () => stepZoom(1) }, '+');
  ui.zoomFit = h(
    'button',
    { type: 'button', class: 'zoom-level', testid: 'zoom-fit', onclick: () => setZoom(1) },
    t('browser.sign.zoom.level', { percent: 100 }),
  );
  ui.barNext = h('button', { type: 'button', testid: 'bar-next', onclick: nextField }, t('browser.sign.next_field'));
  ui.barSign = h(
    'button',
    { type: 'button', class: 'primary', testid: 'bar-sign', hidden: true, onclick: actions.signFromBar },
    t('browser.sign.submit'),
  );
  ui.bar = h(
    'div',
    { class: 'guide', role: 'region', 'aria-label': t('browser.sign.bar'), testid: 'guide-bar' },
    h('div', { class: 'zoom', role: 'group', 'aria-label': t('browser.sign.zoom.group') }, ui.zoomOut, ui.zoomFit, ui.zoomIn),
    S.state.can_sign && h('div', { class: 'steps' }, ui.barNext, ui.barSign),
  );
  refreshZoom();
  return ui.bar;
}

/**
 * @param {HTMLElement} panel
 * @param {PanelActions} actions
 */
export function renderPanel(panel, actions) {
  const { state } = S;
  if (!state.can_sign) return renderClosedPanel(panel, actions);
  const mine = state.widgets.filter((widget) => widget.mine);
  ui.sigPreview = h('div', { class: 'sig-preview', testid: 'signature-preview' });
  ui.sigOpen = h(
    'button',
    { type: 'button', testid: 'signature-open', onclick: () => openSignatureDialog('signature') },
    t('browser.sign.signature.add'),
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
    { type: 'button', class: 'primary wide', testid: 'sign-submit', 'aria-describedby': 'todo-title', onclick: actions.submit },
    t('browser.sign.submit'),
  );
  const initials = mine.some((widget) => widget.type === 'initials');
  if (initials) {
    ui.initialsPreview = h('div', { class: 'sig-preview initials', testid: 'initials-preview' });
    ui.initialsOpen = h(
      'button',
      { type: 'button', testid: 'initials-open', onclick: () => openSignatureDialog('initials') },
      t('browser.sign.initials.draw'),
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
      t('browser.sign.initials.letters'),
    );
  }
  panel.replaceChildren(
    ...nodes(
      h('h2', { id: 'panel-title' }, t('browser.sign.panel.title')),
      h('p', { class: 'hint' }, t('browser.sign.panel.hint')),
      h('h3', null, t('browser.sign.panel.signature')),
      ui.sigPreview,
      ui.sigOpen,
      initials && [
        h('h3', null, t('browser.sign.panel.initials')),
        ui.initialsPreview,
        h('div', { class: 'row' }, ui.initialsOpen, ui.initialsReset),
      ],
      h('h3', { id: 'todo-title' }, t('browser.sign.panel.todo')),
      ui.todo,
      h('div', { class: 'consent' }, ui.consent, h('label', { for: 'consent' }, state.consent_text)),
      ui.submit,
      h(
        'div',
        { class: 'row secondary' },
        h('button', { type: 'button', testid: 'next-field', onclick: nextField }, t('browser.sign.next_field')),
        h(
          'button',
          { type: 'button', class: 'danger-link', testid: 'decline-open', onclick: () => openDeclineDialog(actions.reopen) },
          t('browser.sign.panel.decline'),
        ),
      ),
      downloadLink(),
      signersList(),
    ),
  );
}

/**
 * Why this signer cannot sign now; the document is still shown below it.
 * @param {HTMLElement} panel
 * @param {PanelActions} actions
 */
function renderClosedPanel(panel, actions) {
  const { state } = S;
  let title = t('browser.sign.closed.title');
  let text = t('browser.sign.closed.text', { status: t(`browser.sign.document_status.${state.document.status}`) });
  let extra = null;
  if (state.signer.status === 'signed') {
    title = t('browser.sign.closed.signed.title');
    const everyone = state.signers.every((signer) => signer.status === 'signed');
    const next = t(
      state.document.status === 'completed'
        ? 'browser.sign.closed.signed.complete'
        : everyone
          ? 'browser.sign.closed.signed.completing'
          : 'browser.sign.closed.signed.others',
    );
    const { signed_at } = state.signer;
    text = signed_at
      ? t('browser.sign.closed.signed_on', { day: signed_at.slice(0, 10), next })
      : t('browser.sign.closed.signed', { next });
  } else if (state.signer.status === 'declined') {
    title = t('browser.sign.closed.declined.title');
    text = t('browser.sign.closed.declined');
  } else if (state.document.status === 'completed') {
    text = t('browser.sign.closed.completed');
  } else if (state.document.status === 'declined') {
    text = t('browser.sign.closed.declined_other');
  } else if (state.blocked_reason) {
    title = t('browser.sign.closed.waiting.title');
    text = t('browser.sign.closed.waiting', { reason: state.blocked_reason });
    extra = h('button', { type: 'button', testid: 'recheck', onclick: actions.reopen }, t('browser.sign.closed.recheck'));
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
