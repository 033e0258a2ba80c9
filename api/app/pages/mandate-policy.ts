// The grant form's limits (issue 40, item 2): the mandate's policy as a principal sets it, read back
// from the form, and shown in plain words (activities/mandates/policy.ts policyWords) where a
// mandate is shown before and after its grant.
import { policyWords } from '../../../activities/mandates/policy';
import type { MandatePolicy, Template } from '../../../db/models';
import { type ErrorDetail, errors } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';

export interface PolicyForm {
  counterparties: string;
  templates: string[];
  hashes: string;
  daily_cap: string;
  per_max: string;
  per_period: string;
  hours_from: string;
  hours_to: string;
  time_zone: string;
}

export const blankPolicy = (): PolicyForm => ({
  counterparties: '',
  templates: [],
  hashes: '',
  daily_cap: '',
  per_max: '',
  per_period: 'week',
  hours_from: '',
  hours_to: '',
  time_zone: 'UTC',
});

const PERIODS = ['day', 'week', 'month'] as const;
const TEMPLATE_FIELD = 'policy_template_';

/** The limits as posted (each template a checkbox of its own: the form's fields keep one value per name). */
export function postedPolicy(fields: Record<string, string>): PolicyForm {
  return {
    counterparties: fields.policy_counterparties ?? '',
    templates: Object.keys(fields)
      .filter((name) => name.startsWith(TEMPLATE_FIELD))
      .map((name) => name.slice(TEMPLATE_FIELD.length)),
    hashes: fields.policy_hashes ?? '',
    daily_cap: (fields.policy_daily_cap ?? '').trim(),
    per_max: (fields.policy_per_max ?? '').trim(),
    per_period: fields.policy_per_period ?? 'week',
    hours_from: (fields.policy_hours_from ?? '').trim(),
    hours_to: (fields.policy_hours_to ?? '').trim(),
    time_zone: (fields.policy_time_zone ?? '').trim() || 'UTC',
  };
}

/** The policy the form asks for (policy.ts checkPolicy checks it as a grant does), or undefined when it limits nothing. */
export function policyOf(form: PolicyForm): MandatePolicy | undefined {
  const details: ErrorDetail[] = [];
  const lines = (text: string) =>
    text
      .split(/[\n,]+/)
      .map((line) => line.trim())
      .filter(Boolean);
  const whole = (value: string, path: string, field: string) => {
    if (!value) return undefined;
    if (!/^\d+$/.test(value)) details.push({ path, message: t('app.grant.policy.number', { field }) });
    return Number(value);
  };
  const policy: MandatePolicy = {};
  if (lines(form.counterparties).length) policy.counterparties = lines(form.counterparties);
  if (form.templates.length) policy.templates = form.templates;
  if (lines(form.hashes).length) policy.document_hashes = lines(form.hashes);
  policy.daily_cap = whole(form.daily_cap, 'policy.daily_cap', t('app.grant.policy.daily_cap'));
  const max = whole(form.per_max, 'policy.per_counterparty.max', t('app.grant.policy.per_counterparty'));
  if (max !== undefined) policy.per_counterparty = { max, period: form.per_period as 'day' | 'week' | 'month' };
  if (form.hours_from || form.hours_to) {
    if (!form.hours_from || !form.hours_to) details.push({ path: 'policy.hours', message: t('app.grant.policy.hours_both') });
    policy.hours = { from: form.hours_from, to: form.hours_to, time_zone: form.time_zone };
  }
  if (details.length) throw errors.invalidRequest(t('app.grant.incomplete'), details);
  const kept = Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined)) as MandatePolicy;
  return Object.keys(kept).length ? kept : undefined;
}

const selected = (on: boolean) => on && html` selected`;

/** The form's fieldset of limits, before the terms: each optional. */
export function policyFields(form: PolicyForm, templates: Template[]): SafeHtml {
  const templateChoices = templates.map(
    (template) =>
      html`<label class="choice"><input type="checkbox" name="${TEMPLATE_FIELD}${template.id}" value="on"${form.templates.includes(template.id) && html` checked`} data-testid="policy-template-${template.id}"><span>${template.name}</span></label>`,
  );
  return html`<fieldset class="stack policy" data-testid="grant-policy"><legend>${t('app.grant.policy')}</legend>
<label for="policy-counterparties">${t('app.grant.policy.counterparties')}</label>
<textarea id="policy-counterparties" name="policy_counterparties" rows="2" maxlength="10000" data-testid="policy-counterparties">${form.counterparties}</textarea>
${templates.length > 0 && html`<fieldset><legend>${t('app.grant.policy.templates')}</legend>${templateChoices}</fieldset>`}
<label for="policy-hashes">${t('app.grant.policy.hashes')}</label>
<textarea id="policy-hashes" name="policy_hashes" rows="2" maxlength="10000" data-testid="policy-hashes">${form.hashes}</textarea>
<label for="policy-daily-cap">${t('app.grant.policy.daily_cap')}</label>
<input id="policy-daily-cap" name="policy_daily_cap" inputmode="numeric" maxlength="2" value="${form.daily_cap}" data-testid="policy-daily-cap">
<label for="policy-per-max">${t('app.grant.policy.per_counterparty')}</label>
<div class="inline"><input id="policy-per-max" name="policy_per_max" inputmode="numeric" maxlength="4" value="${form.per_max}" data-testid="policy-per-max">
<label for="policy-per-period">${t('app.grant.policy.period')}</label>
<select id="policy-per-period" name="policy_per_period" data-testid="policy-per-period">${PERIODS.map((period) => html`<option value="${period}"${selected(form.per_period === period)}>${t(`app.grant.policy.period.${period}`)}</option>`)}</select></div>
<fieldset><legend>${t('app.grant.policy.hours')}</legend><div class="inline">
<label for="policy-hours-from">${t('app.grant.policy.from')}</label><input id="policy-hours-from" type="time" name="policy_hours_from" value="${form.hours_from}" data-testid="policy-hours-from">
<label for="policy-hours-to">${t('app.grant.policy.to')}</label><input id="policy-hours-to" type="time" name="policy_hours_to" value="${form.hours_to}" data-testid="policy-hours-to">
<label for="policy-time-zone">${t('app.grant.policy.time_zone')}</label><input id="policy-time-zone" name="policy_time_zone" maxlength="100" value="${form.time_zone}" data-testid="policy-time-zone"></div></fieldset>
</fieldset>`;
}

/** The policy in plain words, a list (templates by name where the account has them). */
export function policyList(policy: MandatePolicy | null, templates: Template[] = []): SafeHtml {
  const names = new Map(templates.map((template) => [template.id, template.name]));
  return html`<ul class="policy-words" data-testid="policy-words">${policyWords(policy, (id) => names.get(id) ?? id).map((line) => html`<li>${line}</li>`)}</ul>`;
}
