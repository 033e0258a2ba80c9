import type Router from '@koa/router';
import type { Deps } from '../../worker/deps';
import { escapeHtml } from '../http/html';

/** The principal-facing app (server-rendered). Sign-in and mandates arrive with the mandates work. */
export function appRoutes(router: Router, deps: Deps): void {
  const appPath = new URL(deps.config.appUrl).pathname.replace(/\/$/, '') || '/';
  router.get(appPath, (ctx) => {
    ctx.type = 'html';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Agents — principal app</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto">
<h1>Principal app</h1>
<p>Here principals will sign in, store their signature appearance, manage API keys and grant signing mandates.</p>
<p>API: <a href="${escapeHtml(deps.config.publicUrl)}/v1/openapi.json">OpenAPI document</a></p>
</body></html>`;
  });
}
