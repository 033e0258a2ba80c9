import type { Context } from 'koa';
import { permits } from '../../activities/accounts/authorize';
import type { Principal } from '../../db/models';
import type { FlagName, FlagSnapshot } from '../../lib/config/flags';
import { ServiceError } from '../../lib/errors';
import { htmlLang, type MessageKey, t } from '../../lib/i18n';
import { html, type SafeHtml } from '../http/html';
import { browserMessages } from './messages';

export const APP_CSP =
  "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; frame-ancestors 'none'; form-action 'self'";

interface PageBase {
  title: string;
  appPath: string;
  csrf?: string;
  body: SafeHtml;
  notice?: { kind: 'ok' | 'error'; text: string };
  scripts?: string[];
  /** The navigation entry of this page (its path under the app, '/' for the overview). */
  current?: string;
}

/**
 * A page of a signed-in principal has the navigation, which hides the entries of features whose
 * flag is off: it needs the deployment's flags (deps.config.flags.values).
 */
export type PageOptions = PageBase & ({ principal?: undefined; flags?: FlagSnapshot } | { principal: Principal; flags: FlagSnapshot });

/** An entry is shown when the gate lets its flag through (the same gate the page itself calls). */
const NAV: Array<{ path: string; label: MessageKey; flag?: FlagName }> = [
  { path: '/', label: 'app.nav.overview' },
  { path: '/documents', label: 'app.nav.documents' },
  { path: '/signature', label: 'app.nav.signature' },
  { path: '/keys', label: 'app.nav.keys' },
  { path: '/mandates', label: 'app.nav.mandates' },
  { path: '/agent-contacts', label: 'app.nav.agent_contacts', flag: 'agent_contacts' },
  { path: '/templates', label: 'app.nav.templates' },
  { path: '/verify', label: 'app.nav.verify' },
];

/** What a visitor who is not signed in can open from any page: the public pages. */
const PUBLIC_NAV: Array<{ path: string; label: MessageKey }> = [{ path: '/verify', label: 'app.nav.verify' }];

function navEntries(flags: FlagSnapshot) {
  return NAV.filter(({ flag }) => !flag || permits(null, { flag }, flags));
}

/** A page of the principal app: header with navigation when signed in, the notice, the body. */
export function renderPage(options: PageOptions): SafeHtml {
  const base = options.appPath;
  const nav = options.principal
    ? html`<nav aria-label="${t('app.nav.app')}">${navEntries(options.flags).map(({ path, label }) => html`<a href="${base}${path}"${options.current === path && html` aria-current="page"`}>${t(label)}</a>`)}
<form method="post" action="${base}/logout">${hiddenCsrf(options.csrf)}<button type="submit" class="link" data-testid="logout">${t('app.nav.sign_out')}</button></form></nav>
<p class="who">${options.principal.name} · ${options.principal.email}</p>`
    : html`<nav aria-label="${t('app.nav.public')}">${PUBLIC_NAV.map(({ path, label }) => html`<a href="${base}${path}"${options.current === path && html` aria-current="page"`}>${t(label)}</a>`)}</nav>`;
  const notice = options.notice
    ? html`<p class="notice ${options.notice.kind}" role="${options.notice.kind === 'error' ? 'alert' : 'status'}" data-testid="notice">${options.notice.text}</p>`
    : '';
  const scripts = (options.scripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`);
  return html`<!doctype html><html lang="${htmlLang()}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('common.page.title', { title: options.title })}</title><link rel="stylesheet" href="/static/app.css">${browserMessages('browser.')}</head>
<body><header class="app"><a class="brand" href="${base}/">${t('common.brand')}</a>${nav}</header>
<main class="app">${notice}<h1>${options.title}</h1>${options.body}</main>${scripts}</body></html>`;
}

export function hiddenCsrf(csrf: string | undefined): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf ?? ''}">`;
}

export function sendPage(ctx: Context, page: SafeHtml, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', APP_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = page.toString();
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** App pages answer errors as pages, with the API's status for the code. */
export function errorPage(
  ctx: Context,
  error: unknown,
  page: DistributiveOmit<PageOptions, 'body' | 'title'> & { title?: string; body?: SafeHtml },
): void {
  if (!(error instanceof ServiceError)) throw error;
  ctx.set(error.headers);
  sendPage(
    ctx,
    renderPage({
      ...page,
      title: page.title ?? t('app.page.error_title'),
      body: page.body ?? html``,
      notice: { kind: 'error', text: error.message },
    }),
    error.status,
  );
}
