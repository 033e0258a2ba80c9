import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Deps } from '../../worker/deps';
import { escapeHtml } from '../http/html';
import { renderPage, sendPage } from './layout';
import { loginRoutes, requireLogin } from './login';
import { appState } from './session';
import { signRequestRoutes } from './sign-request';

/** The principal's app (server-rendered pages at SVC_APP_URL). */
export function appRoutes(router: Router, deps: Deps, appPath: string): void {
  loginRoutes(router, deps, appPath);
  signRequestRoutes(router, deps, appPath);

  const overview = async (ctx: Context) => {
    if (!requireLogin(ctx, appPath)) return;
    const { principal, csrf } = appState(ctx);
    const body = `<p>Signed in as ${escapeHtml(principal!.name)}.</p>`;
    sendPage(ctx, renderPage({ title: 'Overview', appPath, principal, csrf, body }));
  };
  router.get(appPath || '/', overview);
  router.get(`${appPath}/`, overview);
}
