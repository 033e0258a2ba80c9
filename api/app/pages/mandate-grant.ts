import type Router from '@koa/router';
import type { Context } from 'koa';
import { keysOfPrincipal } from '../../../activities/accounts/accounts';
import {
  CONSENT_TEXT,
  CONSENT_VERSION,
  confirmGrant,
  type GrantConfirmation,
  mandateStatus,
  sendGrantCode,
  startGrant,
} from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import type { ConfirmationLevel, Mandate, MandateMode, Principal } from '../../../db/models';
import { type ErrorDetail, errors, type ServiceError } from '../../../lib/errors';
import { html, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { appState } from '../session';
import { formErrors, mandateDeps, type Notice, noticeFrom, pageHandler, postedForm, principalActor, refusal, when } from './common';
import { LEVEL_WORDS, MODE_WORDS, ownMandate } from './mandate-common';

const TITLE = 'Grant a mandate';
const MODES: MandateMode[] = ['outbound', 'inbound', 'both'];

interface GrantForm {
  api_key_id: string;
  name: string;
  level: string;
  mode: string;
  expires_on: string;
  consent: boolean;
}

/** A date means the end of that day in UTC: the mandate works all of that day, wherever one is. */
function endOfDay(value: string): Date | undefined {
  if (!value) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T23:59:59.999Z`) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw errors.invalidRequest('The expiry is not a date.', [
      { path: 'expires_on', message: 'Enter a date such as 2030-12-31, or leave it empty.' },
    ]);
  }
  return date;
}

/** The form's own checks, all at once, before the rule runs its own. */
function checkGrant(form: GrantForm, levels: ConfirmationLevel[]): { level: ConfirmationLevel; mode: MandateMode; expiresAt?: Date } {
  const details: ErrorDetail[] = [];
  if (!form.api_key_id) details.push({ path: 'api_key_id', message: 'Choose the API key this mandate is for.' });
  if (!form.name.trim()) details.push({ path: 'name', message: 'Give the mandate a name.' });
  if (!levels.includes(form.level as ConfirmationLevel))
    details.push({ path: 'level', message: `Choose a confirmation level (${levels.join(' or ')}).` });
  if (!MODES.includes(form.mode as MandateMode)) details.push({ path: 'mode', message: 'Choose which documents the mandate covers.' });
  if (!form.consent) details.push({ path: 'consent', message: `Tick “I accept” to accept the terms (${CONSENT_VERSION}).` });
  let expiresAt: Date | undefined;
  try {
    expiresAt = endOfDay(form.expires_on);
  } catch (error) {
    details.push(...(refusal(error).details ?? []));
  }
  if (details.length) throw errors.invalidRequest('The mandate is not complete.', details);
  return { level: form.level as ConfirmationLevel, mode: form.mode as MandateMode, expiresAt };
}

const checked = (on: boolean) => on && html` checked`;

/** The grant form: key, name, level, mode, expiry, then the clickwrap. */
export function grantRoutes(router: Router, deps: Services, appPath: string): void {
  const flags = deps.config.flags.values;
  const levels = (['L1', 'L2'] as const).filter((level) => (level === 'L1' ? flags.l1_signing : flags.l2_signing));

  /** `listed`: an error of the form's own checks, whose details are sentences to list. */
  async function sendForm(ctx: Context, principal: Principal, csrf: string, form: GrantForm, error?: ServiceError, listed = false) {
    const keys = (await keysOfPrincipal(deps.db, principal.id)).filter((key) => !key.revoked_at);
    let body: SafeHtml;
    if (levels.length === 0) {
      body = html`<p data-testid="signing-disabled">Signing mandates are turned off on this deployment.</p>`;
    } else if (keys.length === 0) {
      body = html`<p data-testid="no-keys">A mandate is granted to one of your API keys, and you have none. <a href="${appPath}/keys">Create an API key</a> first.</p>`;
    } else {
      const keyOptions = keys.map(
        (key) =>
          html`<option value="${key.id}"${key.id === form.api_key_id && html` selected`}>${key.label} (${key.kind === 'oauth' ? 'connected app' : `${key.prefix}…`})</option>`,
      );
      const levelChoices = levels.map(
        (level) =>
          html`<label class="choice"><input type="radio" name="level" value="${level}" required${checked(form.level === level)} data-testid="level-${level}"><span><strong>${level}</strong>: ${LEVEL_WORDS[level]}.</span></label>`,
      );
      const l2Note =
        !flags.l2_signing &&
        html`<p class="hint" data-testid="l2-disabled">L2 (signing without asking each time) is turned off on this deployment, so only L1 is offered.</p>`;
      const l1Note = !flags.l1_signing && html`<p class="hint">L1 is turned off on this deployment.</p>`;
      const modeChoices = MODES.map(
        (mode) =>
          html`<label class="choice"><input type="radio" name="mode" value="${mode}" required${checked(form.mode === mode)} data-testid="mode-${mode}"><span><strong>${mode}</strong>: ${MODE_WORDS[mode]}.</span></label>`,
      );
      body = html`<p>Choose which key may sign for you, and how. Nothing is granted until you enter the code we e-mail you next.</p>
<form method="post" action="${appPath}/mandates/new" class="stack" data-testid="grant-form" novalidate>${hiddenCsrf(csrf)}${formErrors(error, listed ? (detail) => detail.message : undefined)}
<label for="grant-key">API key</label>
<select id="grant-key" name="api_key_id" required data-testid="grant-key"><option value="">Choose a key…</option>${keyOptions}</select>
<label for="grant-name">Name of the mandate</label>
<input id="grant-name" name="name" required maxlength="200" value="${form.name}" aria-describedby="grant-name-help" data-testid="grant-name">
<p id="grant-name-help" class="hint">For you and the completion certificate, for example “Supplier NDAs”.</p>
<fieldset><legend>Confirmation level</legend>${levelChoices}${l2Note}${l1Note}</fieldset>
<fieldset><legend>Which documents it covers</legend>${modeChoices}</fieldset>
<label for="grant-expiry">Expires (optional)</label>
<input id="grant-expiry" type="date" name="expires_on" value="${form.expires_on}" min="${new Date().toISOString().slice(0, 10)}" aria-describedby="grant-expiry-help" data-testid="grant-expiry">
<p id="grant-expiry-help" class="hint">The mandate ends at the end of that day (23:59 UTC). Leave it empty for no expiry; you can revoke it at any time.</p>
<fieldset class="consent"><legend>Terms of the mandate <span class="version" data-testid="consent-version">${CONSENT_VERSION}</span></legend>
<p id="consent-text" class="consent-text" data-testid="consent-text">${CONSENT_TEXT}</p>
<input type="hidden" name="consent_version" value="${CONSENT_VERSION}">
<label class="choice"><input type="checkbox" name="consent" value="accepted" required aria-describedby="consent-text"${checked(form.consent)} data-testid="grant-consent"><span>I accept these terms (${CONSENT_VERSION}).</span></label></fieldset>
<div><button type="submit" class="primary" data-testid="grant-submit">Continue: e-mail me a code</button> <a href="${appPath}/mandates">Cancel</a></div></form>`;
    }
    sendPage(
      ctx,
      renderPage({ title: TITLE, appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/mandates' }),
      error?.status ?? 200,
    );
  }

  /** `link`: the confirmation link of the code's mail, opened here: one button confirms with it. */
  async function sendConfirm(ctx: Context, principal: Principal, csrf: string, mandate: Mandate, notice?: Notice, status = 200, link = '') {
    const key = (await keysOfPrincipal(deps.db, principal.id)).find((candidate) => candidate.id === mandate.api_key_id);
    const current = mandateStatus(mandate);
    const facts = html`<dl class="facts" data-testid="mandate-facts"><dt>Name</dt><dd>${mandate.name}</dd><dt>API key</dt><dd>${key?.label ?? ''} <code>${key?.prefix ?? ''}…</code></dd>
<dt>Level</dt><dd>${mandate.confirmation_level}: ${LEVEL_WORDS[mandate.confirmation_level]}</dd><dt>Covers</dt><dd>${MODE_WORDS[mandate.mode]}</dd><dt>Expires</dt><dd>${when(mandate.expires_at, 'no expiry')}</dd><dt>Terms</dt><dd>${mandate.consent_version}, accepted ${when(mandate.consent_accepted_at)}</dd></dl>`;
    const minutes = Math.round(deps.config.durations.oneTimeCodeMs / 60_000);
    const linkForm =
      link &&
      html`<form method="post" action="${appPath}/mandates/${mandate.id}/confirm" class="stack" data-testid="grant-link-form">${hiddenCsrf(csrf)}<input type="hidden" name="link" value="${link}">
<p>You opened the confirmation link of the e-mail. Press the button to grant the mandate above.</p>
<div><button type="submit" class="primary" data-testid="grant-link-confirm">Grant the mandate</button></div></form>`;
    const body =
      current === 'pending'
        ? html`${facts}${linkForm}<p>We e-mailed a 10-digit code and a confirmation link to <strong>${principal.email}</strong>. Enter the code to grant the mandate, or open the link while signed in here; each works once, for ${minutes} minutes.</p>
<form method="post" action="${appPath}/mandates/${mandate.id}/confirm" class="stack" data-testid="grant-code-form">${hiddenCsrf(csrf)}
<label for="grant-code">Code from the e-mail</label>
<input id="grant-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{10}" maxlength="10" required data-testid="grant-code">
<div><button type="submit" class="primary" data-testid="grant-confirm">Grant the mandate</button></div></form>
<form method="post" action="${appPath}/mandates/${mandate.id}/confirm">${hiddenCsrf(csrf)}<input type="hidden" name="resend" value="1"><button type="submit" class="link" data-testid="grant-resend">Send a new code</button></form>`
        : html`${facts}<p>This mandate is <span class="badge ${current}">${current}</span>.</p><p><a href="${appPath}/mandates">Back to your mandates</a></p>`;
    sendPage(
      ctx,
      renderPage({
        title: 'Confirm the mandate',
        appPath,
        principal,
        csrf,
        flags: deps.config.flags.values,
        body,
        notice,
        current: '/mandates',
      }),
      status,
    );
  }

  const blank = (ctx: Context): GrantForm => ({
    api_key_id: typeof ctx.query.key === 'string' ? ctx.query.key : '',
    name: '',
    level: 'L1',
    mode: '',
    expires_on: '',
    consent: false,
  });

  router.get(
    `${appPath}/mandates/new`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => sendForm(ctx, principal, csrf, blank(ctx))),
  );

  router.post(
    `${appPath}/mandates/new`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      let form = blank(ctx);
      try {
        const { fields } = await postedForm(ctx, deps);
        form = {
          api_key_id: fields.api_key_id ?? '',
          name: fields.name ?? '',
          level: fields.level ?? '',
          mode: fields.mode ?? '',
          expires_on: (fields.expires_on ?? '').trim(),
          consent: fields.consent === 'accepted',
        };
        // Terms accepted on a page older than the current text are not the terms in force.
        if (form.consent && fields.consent_version !== CONSENT_VERSION) {
          form.consent = false;
          throw errors.invalidRequest(`The terms changed to ${CONSENT_VERSION} since the page was opened; read them and accept again.`);
        }
        let grant: ReturnType<typeof checkGrant>;
        try {
          grant = checkGrant(form, [...levels]);
        } catch (error) {
          return await sendForm(ctx, principal, csrf, form, refusal(error), true);
        }
        const { level, mode, expiresAt } = grant;
        const mandate = await startGrant(
          mandateDeps(deps),
          principal,
          { apiKeyId: form.api_key_id, name: form.name, level, mode, expiresAt, consentAccepted: form.consent },
          principalActor(ctx, principal),
          appState(ctx).sessionId,
        );
        ctx.redirect(`${appPath}/mandates/${encodeURIComponent(mandate.id)}/confirm`);
      } catch (error) {
        await sendForm(ctx, principal, csrf, form, refusal(error));
      }
    }),
  );

  router.get(
    `${appPath}/mandates/:id/confirm`,
    pageHandler(appPath, 'Confirm the mandate', async ({ ctx, principal, csrf }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      await sendConfirm(
        ctx,
        principal,
        csrf,
        mandate,
        noticeFrom(ctx, { resent: 'A new code is on its way; the earlier one no longer works.' }),
        200,
        typeof ctx.query.link === 'string' ? ctx.query.link : '',
      );
    }),
  );

  router.post(
    `${appPath}/mandates/:id/confirm`,
    pageHandler(appPath, 'Confirm the mandate', async ({ ctx, principal, csrf }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      try {
        await deps.codeLimits.consumeIp(ctx.ip);
        const { fields } = await postedForm(ctx, deps);
        if (fields.resend) {
          if (mandate.status !== 'pending') throw errors.invalidState(`This mandate is already ${mandateStatus(mandate)}.`);
          await sendGrantCode(mandateDeps(deps), principal, mandate, { sessionId: appState(ctx).sessionId });
          return ctx.redirect(`${appPath}/mandates/${encodeURIComponent(mandate.id)}/confirm?done=resent`);
        }
        const confirmation: GrantConfirmation = fields.link
          ? { link: fields.link, sessionId: appState(ctx).sessionId }
          : { code: (fields.code ?? '').replace(/\s+/g, '') };
        if ('code' in confirmation && !/^\d{10}$/.test(confirmation.code))
          throw errors.invalidRequest('Enter the 10 digits from the e-mail.');
        await confirmGrant(mandateDeps(deps), principal, mandate.id, confirmation, principalActor(ctx, principal));
        ctx.redirect(`${appPath}/mandates?done=granted&mandate=${encodeURIComponent(mandate.id)}`);
      } catch (error) {
        const refused = refusal(error);
        ctx.set(refused.headers);
        await sendConfirm(
          ctx,
          principal,
          csrf,
          await ownMandate(deps, principal, mandate.id),
          { kind: 'error', text: refused.message },
          refused.status,
        );
      }
    }),
  );
}
