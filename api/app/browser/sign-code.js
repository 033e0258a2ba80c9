// Step 1 of the sign page: the 6-digit code e-mailed to the signer, before anything is shown.

import { h } from './dom.js';
import { t, tParts } from './messages.js';
import { api, clearError, root, say, showError, view } from './sign-context.js';

/**
 * The code form; `onVerified` opens the document once the code is confirmed.
 * @param {() => Promise<void>} onVerified
 */
export function renderVerify(onVerified) {
  const email = root.dataset.email;
  const input = h('input', {
    id: 'code',
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    maxlength: '6',
    pattern: '[0-9]{6}',
    required: true,
    'aria-describedby': 'code-help',
    testid: 'code-input',
  });
  const confirm = h('button', { type: 'submit', class: 'primary', testid: 'verify' }, t('browser.sign.code.confirm'));
  const resend = h(
    'button',
    { type: 'button', class: 'link', testid: 'resend-code', onclick: () => send(resend) },
    t('browser.sign.code.resend'),
  );
  const form = h(
    'form',
    {
      class: 'code-form',
      hidden: true,
      novalidate: true,
      onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        verify();
      },
    },
    h('label', { for: 'code' }, t('browser.sign.code.label')),
    h('p', { id: 'code-help', class: 'hint' }, t('browser.sign.code.help')),
    h('div', { class: 'row' }, input, confirm),
    resend,
  );
  const sendButton = h(
    'button',
    { type: 'button', class: 'primary', testid: 'send-code', onclick: () => send(sendButton) },
    t('browser.sign.code.send'),
  );

  // The code works only with the challenge of the request that sent it: this page's.
  /** @type {string | undefined} */
  let challenge;

  /** @param {HTMLButtonElement} button */
  async function send(button) {
    clearError();
    button.disabled = true;
    try {
      /** @type {{ body: import('../../../activities/signers/wire').SignCodeAnswer }} */
      const { body } = await api('POST', '/code');
      challenge = body.challenge;
      say(t('browser.sign.code.sent', { email: body.sent_to }));
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
      showError(t('browser.sign.code.malformed'));
      input.focus();
      return;
    }
    confirm.disabled = true;
    try {
      await api('POST', '/verify', { code, challenge });
      root.dataset.verified = 'true';
      say(t('browser.sign.code.confirmed'));
      await onVerified();
    } catch (error) {
      input.setAttribute('aria-invalid', 'true');
      showError(error);
      input.select();
    } finally {
      confirm.disabled = false;
    }
  }

  // The landing card: sign.css centres the page's header and this step together in the window.
  root.classList.add('landing');
  view.replaceChildren(
    h(
      'section',
      { class: 'verify', 'aria-labelledby': 'verify-title' },
      h('h2', { id: 'verify-title' }, t('browser.sign.code.title')),
      h('p', null, tParts('browser.sign.code.intro', { email: h('strong', null, email) })),
      sendButton,
      form,
    ),
  );
}
