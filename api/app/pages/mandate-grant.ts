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
import { type ConfirmationLevel, type Mandate, type MandateMode, type Principal, Template } from '../../../db/models';
import { type ErrorDetail, errors, type ServiceError } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { appState } from '../session';
import {
  formErrors,
  mandateDeps,
  type Notice,
  nameWord,
  noticeFrom,
  pageHandler,
  postedForm,
  principalActor,
  refusal,
  when,
} from './common';
import { LEVEL_WORDS, MODE_WORDS, ownMandate } from './mandate-common';
import { blankPolicy, type PolicyForm, policyFields, policyList, policyOf, postedPolicy } from './mandate-policy';

const TITLE = 'app.grant.title';
const MODES: MandateMode[] = ['outbound', 'inbound', 'both'];

interface GrantForm {
  api_key_id: string;
  name: string;
  level: string;
  mode: string;
  expires_on: string;
  policy: PolicyForm;
  consent: boolean;
}

/** The account's templates a policy may name (not deleted). */
const templatesOf = (deps: Services, principal: Principal) =>
  Template.query(deps.db).where({ tenant_id: principal.tenant_id }).whereNull('deleted_at').orderBy('created_at');

/** A date means the end of that day in UTC: the mandate works all of that day, wherever one is. */
function endOfDay(value: string): Date | undefined {
  if (!value) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T23:59:59.999Z`) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw errors.invalidRequest(t('app.grant.expiry_not_date'), [{ path: 'expires_on', message: t('app.grant.expiry_help') }]);
  }
  return date;
}

/** The form's own checks, all at once, before the rule runs its own. */
function checkGrant(
  form: GrantForm,
  levels: ConfirmationLevel[],
): { level: ConfirmationLevel; mode: MandateMode; expiresAt?: Date; policy?: ReturnType<typeof policyOf> } {
  const details: ErrorDetail[] = [];
  if (!form.api_key_id) details.push({ path: 'api_key_id', message: t('app.grant.choose_key') });
  if (!form.name.trim()) details.push({ path: 'name', message: t('app.grant.give_name') });
  if (!levels.includes(form.level as ConfirmationLevel)) {
    const choices = new Intl.ListFormat('en', { type: 'disjunction' }).format(levels.map((level) => nameWord('level', level)));
    details.push({ path: 'level', message: t('app.grant.choose_level', { levels: choices }) });
  }
  if (!MODES.includes(form.mode as MandateMode)) details.push({ path: 'mode', message: t('app.grant.choose_mode') });
  if (!form.consent) details.push({ path: 'consent', message: t('app.grant.tick_consent', { version: CONSENT_VERSION }) });
  let expiresAt: Date | undefined;
  try {
    expiresAt = endOfDay(form.expires_on);
  } catch (error) {
    details.push(...(refusal(error).details ?? []));
  }
  let policy: ReturnType<typeof policyOf>;
  try {
    policy = policyOf(form.policy);
  } catch (error) {
    details.push(...(refusal(error).details ?? []));
  }
  if (details.length) throw errors.invalidRequest(t('app.grant.incomplete'), details);
  return { level: form.level as ConfirmationLevel, mode: form.mode as MandateMode, expiresAt, policy };
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
      body = html`<p data-testid="signing-disabled">${t('app.grant.signing_off')}</p>`;
    } else if (keys.length === 0) {
      body = html`<p data-testid="no-keys">${tHtml('app.grant.no_keys', { link: html`<a href="${appPath}/keys">${t('app.grant.no_keys_link')}</a>` })}</p>`;
    } else {
      const keyOptions = keys.map(
        (key) =>
          html`<option value="${key.id}"${key.id === form.api_key_id && html` selected`}>${t('app.grant.key_option', { label: key.label, what: key.kind === 'oauth' ? t('app.grant.connected_app') : `${key.prefix}…` })}</option>`,
      );
      const levelChoices = levels.map(
        (level) =>
          html`<label class="choice"><input type="radio" name="level" value="${level}" required${checked(form.level === level)} data-testid="level-${level}"><span>${tHtml('app.mandates.level_line', { level: html`<strong>${nameWord('level', level)}</strong>`, words: LEVEL_WORDS[level] })}</span></label>`,
      );
      const l2Note = !flags.l2_signing && html`<p class="hint" data-testid="l2-disabled">${t('app.grant.l2_off')}</p>`;
      const l1Note = !flags.l1_signing && html`<p class="hint">${t('app.grant.l1_off')}</p>`;
      const modeChoices = MODES.map(
        (mode) =>
          html`<label class="choice"><input type="radio" name="mode" value="${mode}" required${checked(form.mode === mode)} data-testid="mode-${mode}"><span>${tHtml('app.mandates.level_line', { level: html`<strong>${nameWord('mode', mode)}</strong>`, words: MODE_WORDS[mode] })}</span></label>`,
      );
      body = html`<p>${t('app.grant.intro')}</p>
<form method="post" action="${appPath}/mandates/new" class="stack" data-testid="grant-form" novalidate>${hiddenCsrf(csrf)}${formErrors(error, listed ? (detail) => detail.message : undefined)}
<label for="grant-key">${t('app.grant.key')}</label>
<select id="grant-key" name="api_key_id" required data-testid="grant-key"><option value="">${t('app.grant.choose_a_key')}</option>${keyOptions}</select>
<label for="grant-name">${t('app.grant.name')}</label>
<input id="grant-name" name="name" required maxlength="200" value="${form.name}" aria-describedby="grant-name-help" data-testid="grant-name">
<p id="grant-name-help" class="hint">${t('app.grant.name_help')}</p>
<fieldset><legend>${t('app.grant.level')}</legend>${levelChoices}${l2Note}${l1Note}</fieldset>
<fieldset><legend>${t('app.grant.covers')}</legend>${modeChoices}</fieldset>
<label for="grant-expiry">${t('app.grant.expires')}</label>
<input id="grant-expiry" type="date" name="expires_on" value="${form.expires_on}" min="${new Date().toISOString().slice(0, 10)}" aria-describedby="grant-expiry-help" data-testid="grant-expiry">
<p id="grant-expiry-help" class="hint">${t('app.grant.expires_help')}</p>
${policyFields(form.policy, await templatesOf(deps, principal))}
<fieldset class="consent"><legend>${t('app.grant.terms')} <span class="version" data-testid="consent-version">${CONSENT_VERSION}</span></legend>
<p id="consent-text" class="consent-text" data-testid="consent-text">${CONSENT_TEXT}</p>
<input type="hidden" name="consent_version" value="${CONSENT_VERSION}">
<label class="choice"><input type="checkbox" name="consent" value="accepted" required aria-describedby="consent-text"${checked(form.consent)} data-testid="grant-consent"><span>${t('app.grant.accept', { version: CONSENT_VERSION })}</span></label></fieldset>
<div><button type="submit" class="primary" data-testid="grant-submit">${t('app.grant.submit')}</button> <a href="${appPath}/mandates">${t('app.mandates.cancel')}</a></div></form>`;
    }
    sendPage(
      ctx,
      renderPage({ title: t(TITLE), appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/mandates' }),
      error?.status ?? 200,
    );
  }

  /** `link`: the confirmation link of the code's mail, opened here: one button confirms with it. */
  async function sendConfirm(ctx: Context, principal: Principal, csrf: string, mandate: Mandate, notice?: Notice, status = 200, link = '') {
    const key = (await keysOfPrincipal(deps.db, principal.id)).find((candidate) => candidate.id === mandate.api_key_id);
    const current = mandateStatus(mandate);
    const facts = html`<dl class="facts" data-testid="mandate-facts"><dt>${t('app.mandates.column.name')}</dt><dd>${mandate.name}</dd><dt>${t('app.grant.key')}</dt><dd>${key?.label ?? ''} <code>${key?.prefix ?? ''}…</code></dd>
<dt>${t('app.mandates.column.level')}</dt><dd>${t('app.grant.level_is', { level: nameWord('level', mandate.confirmation_level), words: LEVEL_WORDS[mandate.confirmation_level] })}</dd><dt>${t('app.mandates.column.covers')}</dt><dd>${MODE_WORDS[mandate.mode]}</dd><dt>${t('app.mandates.column.expires')}</dt><dd>${when(mandate.expires_at, t('app.mandates.no_expiry'))}</dd><dt>${t('app.grant.policy_short')}</dt><dd>${policyList(mandate.policy, await templatesOf(deps, principal))}</dd><dt>${t('app.grant.terms_short')}</dt><dd>${tHtml('app.grant.terms_accepted', { version: mandate.consent_version, at: when(mandate.consent_accepted_at) })}</dd></dl>`;
    const minutes = Math.round(deps.config.durations.oneTimeCodeMs / 60_000);
    const linkForm =
      link &&
      html`<form method="post" action="${appPath}/mandates/${mandate.id}/confirm" class="stack" data-testid="grant-link-form">${hiddenCsrf(csrf)}<input type="hidden" name="link" value="${link}">
<p>${t('app.grant.link_opened')}</p>
<div><button type="submit" class="primary" data-testid="grant-link-confirm">${t('app.grant.grant')}</button></div></form>`;
    const body =
      current === 'pending'
        ? html`${facts}${linkForm}<p>${tHtml('app.grant.code_sent', { email: html`<strong>${principal.email}</strong>`, minutes })}</p>
<form method="post" action="${appPath}/mandates/${mandate.id}/confirm" class="stack" data-testid="grant-code-form">${hiddenCsrf(csrf)}
<label for="grant-code">${t('app.grant.code')}</label>
<input id="grant-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{10}" maxlength="10" required data-testid="grant-code">
<div><button type="submit" class="primary" data-testid="grant-confirm">${t('app.grant.grant')}</button></div></form>
<form method="post" action="${appPath}/mandates/${mandate.id}/confirm">${hiddenCsrf(csrf)}<input type="hidden" name="resend" value="1"><button type="submit" class="link" data-testid="grant-resend">${t('app.grant.new_code')}</button></form>`
        : html`${facts}<p>${tHtml('app.grant.mandate_is', { status: html`<span class="badge ${current}">${nameWord('status', current)}</span>` })}</p><p><a href="${appPath}/mandates">${t('app.mandates.back')}</a></p>`;
    sendPage(
      ctx,
      renderPage({
        title: t('app.grant.confirm_title'),
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
    policy: blankPolicy(),
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
          policy: postedPolicy(fields),
          consent: fields.consent === 'accepted',
        };
        // Terms accepted on a page older than the current text are not the terms in force.
        if (form.consent && fields.consent_version !== CONSENT_VERSION) {
          form.consent = false;
          throw errors.invalidRequest(t('app.grant.terms_changed', { version: CONSENT_VERSION }));
        }
        let grant: ReturnType<typeof checkGrant>;
        try {
          grant = checkGrant(form, [...levels]);
        } catch (error) {
          return await sendForm(ctx, principal, csrf, form, refusal(error), true);
        }
        const { level, mode, expiresAt, policy } = grant;
        const mandate = await startGrant(
          mandateDeps(deps),
          principal,
          { apiKeyId: form.api_key_id, name: form.name, level, mode, expiresAt, policy, consentAccepted: form.consent },
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
    pageHandler(appPath, 'app.grant.confirm_title', async ({ ctx, principal, csrf }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      await sendConfirm(
        ctx,
        principal,
        csrf,
        mandate,
        noticeFrom(ctx, { resent: t('app.grant.resent') }),
        200,
        typeof ctx.query.link === 'string' ? ctx.query.link : '',
      );
    }),
  );

  router.post(
    `${appPath}/mandates/:id/confirm`,
    pageHandler(appPath, 'app.grant.confirm_title', async ({ ctx, principal, csrf }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      try {
        await deps.codeLimits.consumeIp(ctx.ip);
        const { fields } = await postedForm(ctx, deps);
        if (fields.resend) {
          if (mandate.status !== 'pending')
            throw errors.invalidState(t('app.grant.already', { status: nameWord('status', mandateStatus(mandate)) }));
          await sendGrantCode(mandateDeps(deps), principal, mandate, { sessionId: appState(ctx).sessionId });
          return ctx.redirect(`${appPath}/mandates/${encodeURIComponent(mandate.id)}/confirm?done=resent`);
        }
        const confirmation: GrantConfirmation = fields.link
          ? { link: fields.link, sessionId: appState(ctx).sessionId }
          : { code: (fields.code ?? '').replace(/\s+/g, '') };
        if ('code' in confirmation && !/^\d{10}$/.test(confirmation.code)) throw errors.invalidRequest(t('app.grant.ten_digits'));
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
