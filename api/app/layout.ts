import type { Context } from 'koa';
import type { Principal } from '../../db/models';
import { ServiceError } from '../../lib/errors';
import { escapeHtml } from '../http/html';

export const APP_CSP =
  "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; frame-ancestors 'none'; form-action 'self'";

export interface PageOptions {
  title: string;
  appPath: string;
  principal?: Principal;
  csrf?: string;
  /** Trusted HTML: every value inside must already be escaped. */
  body: string;
  notice?: { kind: 'ok' | 'error'; text: string };
  scripts?: string[];
  /** The navigation entry of this page (its path under the app, '/' for the overview). */
  current?: string;
}

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/signature', 'Signature'],
  ['/keys', 'API keys'],
  ['/mandates', 'Mandates'],
  ['/templates', 'Templates'],
];

/** A page of the principal app: header with navigation when signed in, the notice, the body. */
export function renderPage(options: PageOptions): string {
  const base = options.appPath;
  const nav = options.principal
    ? `<nav aria-label="App">${NAV.map(([path, label]) => `<a href="${base}${path}"${options.current === path ? ' aria-current="page"' : ''}>${label}</a>`).join('')}
<form method="post" action="${base}/logout"><input type="hidden" name="_csrf" value="${escapeHtml(options.csrf ?? '')}"><button type="submit" class="link" data-testid="logout">Sign out</button></form></nav>
<p class="who">${escapeHtml(options.principal.name)} · ${escapeHtml(options.principal.email)}</p>`
    : '';
  const notice = options.notice
    ? `<p class="notice ${options.notice.kind}" role="${options.notice.kind === 'error' ? 'alert' : 'status'}" data-testid="notice">${escapeHtml(options.notice.text)}</p>`
    : '';
  const scripts = (options.scripts ?? []).map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · Agents</title><link rel="stylesheet" href="/static/app.css"></head>
<body><header class="app"><a class="brand" href="${base}/">Agents</a>${nav}</header>
<main class="app">${notice}<h1>${escapeHtml(options.title)}</h1>${options.body}</main>${scripts}</body></html>`;
}

export function hiddenCsrf(csrf: string | undefined): string {
  return `<input type="hidden" name="_csrf" value="${escapeHtml(csrf ?? '')}">`;
}

export function sendPage(ctx: Context, html: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', APP_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = html;
}

/** App pages answer errors as pages, with the API's status for the code. */
export function errorPage(
  ctx: Context,
  error: unknown,
  page: Omit<PageOptions, 'body' | 'title'> & { title?: string; body?: string },
): void {
  if (!(error instanceof ServiceError)) throw error;
  ctx.set(error.headers);
  sendPage(
    ctx,
    renderPage({
      ...page,
      title: page.title ?? 'Something is not right',
      body: page.body ?? '',
      notice: { kind: 'error', text: error.message },
    }),
    error.status,
  );
}
