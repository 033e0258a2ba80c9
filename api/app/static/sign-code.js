// Step 1 of the sign page: the 6-digit code e-mailed to the signer, before anything is shown.

import { h } from './dom.js';
import { api, clearError, root, say, showError, view } from './sign-context.js';

/** The code form; `onVerified` opens the document once the code is confirmed. */
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
  const confirm = h('button', { type: 'submit', class: 'primary', testid: 'verify' }, 'Confirm');
  const resend = h('button', { type: 'button', class: 'link', testid: 'resend-code', onclick: () => send(resend) }, 'Send a new code');
  const form = h(
    'form',
    {
      class: 'code-form',
      hidden: true,
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        verify();
      },
    },
    h('label', { for: 'code' }, 'Code from the e-mail'),
    h('p', { id: 'code-help', class: 'hint' }, '6 digits. It works once and for a few minutes.'),
    h('div', { class: 'row' }, input, confirm),
    resend,
  );
  const sendButton = h('button', { type: 'button', class: 'primary', testid: 'send-code', onclick: () => send(sendButton) }, 'Send code');

  // The code works only with the challenge of the request that sent it: this page's.
  let challenge;

  async function send(button) {
    clearError();
    button.disabled = true;
    try {
      const { body } = await api('POST', '/code');
      challenge = body.challenge;
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
      await api('POST', '/verify', { code, challenge });
      root.dataset.verified = 'true';
      say('Thank you, your e-mail address is confirmed.');
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
      h('h2', { id: 'verify-title' }, 'Confirm it is you'),
      h('p', null, 'To open this document, we e-mail a 6-digit code to ', h('strong', null, email), '.'),
      sendButton,
      form,
    ),
  );
}
