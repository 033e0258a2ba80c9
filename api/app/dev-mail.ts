import type Router from '@koa/router';
import { MailMessage } from '../../db/models';
import type { Deps } from '../../worker/deps';
import { escapeHtml } from '../http/html';

/** The embedded outbox, readable in a browser outside production (DESIGN: mail). */
export function devMailRoutes(router: Router, deps: Deps): void {
  if (deps.config.env === 'production') return;
  router.get('/dev/mail', async (ctx) => {
    const mails = await MailMessage.query(deps.db).orderBy('created_at', 'desc').limit(100);
    const rows = mails
      .map((mail) => `<article><h2>${escapeHtml(mail.subject)}</h2><p class="meta">To ${escapeHtml(mail.to_address)} · ${mail.created_at.toISOString()} · ${escapeHtml(mail.purpose)} · ${mail.status}</p><pre>${escapeHtml(mail.text)}</pre></article>`)
      .join('\n');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'self'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Outbox</title><link rel="stylesheet" href="/static/sign.css"></head>
<body><main class="outbox"><h1>Outbox (${deps.mailer.mode === 'smtp' ? 'SMTP delivers mail; copies here' : 'no SMTP_URL: mail stays here'})</h1>${rows || '<p>No mail yet.</p>'}</main></body></html>`;
  });
}
