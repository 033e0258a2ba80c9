import type Router from '@koa/router';
import type { Services } from '../../activities/services';
import { MailMessage } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { htmlLang, t } from '../../lib/i18n';
import { mac, verifyMac } from '../../lib/secrets/signed';
import { html, joinHtml } from '../http/html';

/** Whether the API binds only a loopback address: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Whether this API serves /dev/mail at all: only in development, only bound to loopback. */
export function servesDevMail(config: Pick<Config, 'env' | 'host'>): boolean {
  return config.env === 'development' && isLoopbackHost(config.host);
}

const DEV_MAIL = 'dev-mail';

/** The outbox's address with its token, as `npm start` prints it on its console (the only place it appears). */
export function devMailUrl(publicUrl: string, secret: Buffer): string {
  return `${publicUrl}/dev/mail?token=${mac(secret, DEV_MAIL, 'outbox')}`;
}

/**
 * The embedded outbox, readable in a browser: only in development and only on a loopback-bound API
 * (fails closed: test, production or 0.0.0.0 get 404). Even there it answers only a request whose
 * Host is a loopback name (a DNS-rebound page's Host is its own name) and that carries the token
 * `npm start` printed, so another local user's process or a web page cannot list the mail.
 */
export function devMailRoutes(router: Router, deps: Services): void {
  if (!servesDevMail(deps.config)) return;
  router.get('/dev/mail', async (ctx, next) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    if (!isLoopbackHost(ctx.hostname) || !verifyMac(deps.secret, DEV_MAIL, 'outbox', token)) return next();
    const mails = await MailMessage.query(deps.db).orderBy('created_at', 'desc').limit(100);
    const rows = mails.map(
      (mail) =>
        html`<article><h2>${mail.subject}</h2><p class="meta">${t('app.dev_mail.meta', { to: mail.to_address, at: mail.created_at.toISOString(), purpose: mail.purpose, status: mail.status })}</p><pre>${mail.text}</pre></article>`,
    );
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'self'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    ctx.body =
      html`<!doctype html><html lang="${htmlLang()}"><head><meta charset="utf-8"><title>${t('app.dev_mail.title')}</title><link rel="stylesheet" href="/static/sign.css"></head>
<body><main class="outbox"><h1>${t(deps.mailer.mode === 'smtp' ? 'app.dev_mail.heading_smtp' : 'app.dev_mail.heading_kept')}</h1>${rows.length ? joinHtml(rows, '\n') : html`<p>${t('app.dev_mail.empty')}</p>`}</main></body></html>`.toString();
  });
}
