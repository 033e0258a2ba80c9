import type { Context } from 'koa';
import type { Actor } from '../../../activities/audit/audit';
import type { MandateDeps } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import type { Principal, RevokedVia } from '../../../db/models';
import { type ErrorDetail, errors, ServiceError } from '../../../lib/errors';
import { formatMoment, hasMessage, type MessageKey, type MessageParams, t } from '../../../lib/i18n';
import { type HtmlValue, html, type SafeHtml } from '../../http/html';
import { actorFrom } from '../../http/request';
import { type Form, readForm } from '../forms';
import { type PageOptions, renderPage, sendPage } from '../layout';
import { appState, checkForm, requireLogin } from '../session';

export type Notice = PageOptions['notice'];

/** What a page handler of a signed-in principal works with. */
export interface PageRequest {
  ctx: Context;
  principal: Principal;
  csrf: string;
}

/**
 * A page of the signed-in principal: everyone else is sent to sign in; a rule's refusal
 * (ServiceError) is shown as a page with its status, never a 500.
 */
export function pageHandler(appPath: string, title: MessageKey, handler: (request: PageRequest) => Promise<void>) {
  return async (ctx: Context) => {
    if (!requireLogin(ctx, appPath)) return;
    const { principal, csrf, flags } = appState(ctx);
    try {
      await handler({ ctx, principal: principal!, csrf: csrf! });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      ctx.set(error.headers);
      const back = html`<p><a href="${ctx.path}">${t('app.page.back')}</a> · <a href="${appPath}/">${t('app.nav.overview')}</a></p>`;
      sendPage(
        ctx,
        renderPage({
          title: t(title),
          appPath,
          principal: principal!,
          csrf,
          flags: flags!,
          body: back,
          notice: { kind: 'error', text: error.message },
        }),
        error.status,
      );
    }
  };
}

/** A posted form of this session; one without the session's form token is refused with 400. */
export async function postedForm(ctx: Context, deps: Services, limit?: number): Promise<Form> {
  const form = await readForm(ctx, limit);
  if (!checkForm(ctx, deps, form.fields._csrf)) throw errors.invalidRequest(t('app.form.expired'));
  return form;
}

export function principalActor(ctx: Context, principal: Principal): Actor {
  return actorFrom(ctx, { type: 'principal', id: principal.id });
}

/** What the rules of e-mailed codes (sign-in, sign links, mandate grants) work with. */
export function codeDeps(deps: Services) {
  return {
    db: deps.db,
    secret: deps.secret,
    mailer: deps.mailer,
    codeLimits: deps.codeLimits,
    codeTtlMs: deps.config.durations.oneTimeCodeMs,
    appUrl: deps.config.appUrl,
  };
}

export function mandateDeps(deps: Services): MandateDeps {
  return {
    ...codeDeps(deps),
    flags: deps.config.flags.values,
    appUrl: deps.config.appUrl,
    receipts: deps.receipts,
    publicUrl: deps.config.publicUrl,
  };
}

/**
 * Words by name, each read from the catalogue when it is read (so in the request's locale): a
 * record the pages index as before (`LEVEL_WORDS.L1`), whose values are the messages of `keys`.
 */
export function catalogueWords<K extends string>(keys: Record<K, MessageKey>, params?: MessageParams): Readonly<Record<K, string>> {
  const words = {} as Record<K, string>;
  for (const [name, key] of Object.entries(keys) as [K, MessageKey][])
    Object.defineProperty(words, name, { get: () => t(key, params), enumerable: true });
  return words;
}

/**
 * A name the service shows (a status, a plan, a level, a kind of field) in words: the catalogue's
 * `app.<group>.<name>` (`app.status.active`), or the name as it is when the catalogue has none.
 */
export function nameWord(group: 'status' | 'plan' | 'level' | 'mode' | 'image' | 'widget', name: string): string {
  const key = `app.${group}.${name}`;
  return hasMessage(key) ? t(key) : name;
}

/** How a mandate or key was revoked, as the mandates and keys pages say it. */
export const REVOKED_VIA: Readonly<Record<RevokedVia, string>> = catalogueWords({
  app: 'app.revoked_via.app',
  'stop-link': 'app.revoked_via.stop_link',
  key: 'app.revoked_via.key',
  operator: 'app.revoked_via.operator',
});

/** When and how something was revoked: "revoked 2026-… by the “Stop this agent” link of an e-mail". */
export function revokedWords(at: Date | null, via: RevokedVia | null): SafeHtml {
  return html`${when(at)}${via && html` <span data-testid="revoked-via">${REVOKED_VIA[via]}</span>`}`;
}

/** A moment as people read it, in UTC, with the machine-readable value beside it. */
export function when(date: Date | null | undefined, empty = '—'): SafeHtml {
  if (!date) return html`${empty}`;
  return html`<time datetime="${date.toISOString()}">${formatMoment(date)}</time>`;
}

/**
 * The error of a form, next to it: the rule's message, or with `describe`, a list of what to
 * correct, one line per detail.
 */
export function formErrors(error: ServiceError | undefined, describe?: (detail: ErrorDetail) => string): SafeHtml {
  if (!error) return html``;
  const details = describe && error.details?.length ? error.details.map((detail) => html`<li>${describe(detail)}</li>`) : [];
  const head = details.length ? t('app.form.correct') : error.message;
  return html`<div class="form-errors" role="alert" data-testid="form-errors"><p>${head}</p>${details.length > 0 && html`<ul>${details}</ul>`}</div>`;
}

/** A ServiceError kept to show beside the form; anything else is a bug and propagates. */
export function refusal(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  throw error;
}

/** Fixed notices chosen by a query value after a redirect (no user text is reflected). */
export function noticeFrom(ctx: Context, notices: Record<string, string>): Notice {
  const key = typeof ctx.query.done === 'string' ? ctx.query.done : '';
  // Own keys only: `?done=constructor` would otherwise find Object's and render a function as the notice.
  return Object.hasOwn(notices, key) ? { kind: 'ok', text: notices[key] } : undefined;
}

export interface TableRow {
  /** Attributes of the <tr>, name → value (names are written in code, values are escaped). */
  attrs?: Record<string, string>;
  /** One value per column; the first is the row's header. */
  cells: HtmlValue[];
}

/** A table that becomes one card per row on a phone: each cell names its column (data-label); its scrolling wrapper is keyboard-reachable. */
export function dataTable(testid: string, columns: string[], rows: TableRow[]): SafeHtml {
  const head = columns.map(
    (column) => html`<th scope="col">${column || html`<span class="visually-hidden">${t('app.table.actions')}</span>`}</th>`,
  );
  const body = rows.map(({ attrs = {}, cells }) => {
    const [first, ...rest] = cells;
    const tds = rest.map((cell, index) =>
      columns[index + 1] ? html`<td data-label="${columns[index + 1]}">${cell}</td>` : html`<td>${cell}</td>`,
    );
    const attributes = Object.entries(attrs).map(([name, value]) => html` ${name}="${value}"`);
    return html`<tr${attributes}><th scope="row">${first}</th>${tds}</tr>`;
  });
  // The wrapper scrolls sideways on narrow screens: focusable and named, so a keyboard can scroll it too.
  const label = columns.filter(Boolean).join(', ');
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label="${label}"><table class="stacked" data-testid="${testid}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}
