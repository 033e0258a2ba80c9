import type Router from '@koa/router';
import type { Context } from 'koa';
import { requestLoginCode, signIn, signInWithLink, signOut } from '../../activities/principals/sessions';
import type { Services } from '../../activities/services';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { randomBase62 } from '../../lib/ids';
import { readSignedCookie, secureCookies, setSignedCookie } from '../http/cookies';
import { html, type SafeHtml } from '../http/html';
import { actorFrom } from '../http/request';
import { readForm } from './forms';
import { errorPage, renderPage, sendPage } from './layout';
import { tHtml } from './messages';
import { codeDeps } from './pages/common';
import { appState, checkForm, checkOrigin, endAppSession, safeNext, startAppSession } from './session';

// Where it always was for the pages that import it from here (OAuth's consent); it lives with the session.
export { requireLogin } from './session';

function emailForm(appPath: string, next: string, email = ''): SafeHtml {
  return html`<form method="post" action="${appPath}/login" class="stack">
<input type="hidden" name="next" value="${next}">
<label>${t('app.login.email')} <input type="email" name="email" required autocomplete="email" value="${email}" data-testid="login-email"></label>
<button type="submit" data-testid="login-send">${t('app.login.send')}</button></form>`;
}

/** The cookie that binds a code mail's sign-in link to the browser that asked for the code (HttpOnly: no script reads it). */
const BINDING_COOKIE = 'svc_code_bind';

function codeForm(appPath: string, next: string, email: string, challenge: string): SafeHtml {
  return html`<p>${tHtml('app.login.code_sent', { email: html`<strong>${email}</strong>` })}</p>
<form method="post" action="${appPath}/login/verify" class="stack">
<input type="hidden" name="next" value="${next}"><input type="hidden" name="email" value="${email}"><input type="hidden" name="challenge" value="${challenge}">
<label>${t('app.login.code')} <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{10}" maxlength="10" required data-testid="login-code"></label>
<button type="submit" data-testid="login-verify">${t('app.login.sign_in')}</button></form>
<form method="post" action="${appPath}/login"><input type="hidden" name="next" value="${next}"><input type="hidden" name="email" value="${email}"><button type="submit" class="link">${t('app.login.new_code')}</button></form>`;
}

/** Sign-in with an e-mailed one-time code; sign-out ends the session on the server too. */
export function loginRoutes(router: Router, deps: Services, appPath: string): void {
  const codes = codeDeps(deps);
  // No session exists yet to bind a form token to, so the Origin check and the per-address limit guard these forms.
  const guard = async (ctx: Context) => {
    if (!checkOrigin(ctx, deps)) throw errors.invalidRequest(t('app.login.foreign_form'));
    await deps.codeLimits.consumeIp(ctx.ip);
  };
  const page = (ctx: Context, body: SafeHtml, notice?: { kind: 'ok' | 'error'; text: string }, status = 200) =>
    sendPage(ctx, renderPage({ title: t('app.login.title'), appPath, body, notice }), status);
  const cookiePath = `${appPath}/login`;
  const readBinding = (ctx: Context) =>
    readSignedCookie<{ nonce: string; next: string; exp: number }>(ctx, deps.secret, BINDING_COOKIE, 'code-binding');
  /**
   * This browser's binding nonce (kept across its code requests, so each of its links works), set or
   * refreshed whether or not the address has an account: the answer is the same either way.
   */
  const bindBrowser = (ctx: Context, next: string): string => {
    const nonce = readBinding(ctx)?.nonce ?? randomBase62(32);
    setSignedCookie(ctx, deps.secret, {
      name: BINDING_COOKIE,
      purpose: 'code-binding',
      payload: { nonce, next },
      ttlMs: deps.config.durations.oneTimeCodeMs,
      path: cookiePath,
      secure: secureCookies(ctx, deps.config),
    });
    return nonce;
  };

  router.get(`${appPath}/login`, (ctx) => {
    if (appState(ctx).principal) return ctx.redirect(safeNext(ctx.query.next, appPath));
    page(ctx, emailForm(appPath, safeNext(ctx.query.next, appPath)));
  });

  router.post(`${appPath}/login`, async (ctx) => {
    let email = '';
    let next = `${appPath}/`;
    let challenge = '';
    try {
      await guard(ctx);
      const { fields } = await readForm(ctx);
      email = (fields.email ?? '').trim();
      next = safeNext(fields.next, appPath);
      if (!/^[^\s@]+@[^\s@]+$/.test(email))
        return page(ctx, emailForm(appPath, next, email), { kind: 'error', text: t('app.login.no_email') }, 400);
      challenge = await requestLoginCode(codes, email, actorFrom(ctx, { type: 'principal' }), bindBrowser(ctx, next));
    } catch (error) {
      return errorPage(ctx, error, { appPath, title: t('app.login.title'), body: emailForm(appPath, next, email) });
    }
    page(ctx, codeForm(appPath, next, email, challenge));
  });

  router.post(`${appPath}/login/verify`, async (ctx) => {
    let email = '';
    let next = `${appPath}/`;
    let challenge = '';
    try {
      await guard(ctx);
      const { fields } = await readForm(ctx);
      email = (fields.email ?? '').trim();
      next = safeNext(fields.next, appPath);
      challenge = fields.challenge ?? '';
      const { session } = await signIn(
        { ...codes, sessionTtlMs: deps.config.durations.appSessionMs },
        { email, code: fields.code ?? '', challenge },
        actorFrom(ctx, { type: 'principal' }),
      );
      startAppSession(ctx, deps, session.id);
      ctx.redirect(next);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      ctx.set(error.headers);
      page(ctx, codeForm(appPath, next, email, challenge), { kind: 'error', text: error.message }, error.status);
    }
  });

  // The mail's link: it signs in only in the browser that asked for the code (its binding cookie), once.
  router.get(`${appPath}/login/link`, async (ctx) => {
    try {
      await deps.codeLimits.consumeIp(ctx.ip);
    } catch (error) {
      return errorPage(ctx, error, { appPath, title: t('app.login.title'), body: emailForm(appPath, `${appPath}/`) });
    }
    const binding = readBinding(ctx);
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const signedIn = await signInWithLink(
      { ...codes, sessionTtlMs: deps.config.durations.appSessionMs },
      { link: token, binding: binding?.nonce },
      actorFrom(ctx, { type: 'principal' }),
    );
    if (!signedIn) {
      const text = t('app.login.link_failed');
      return page(ctx, emailForm(appPath, safeNext(binding?.next, appPath)), { kind: 'error', text }, 400);
    }
    startAppSession(ctx, deps, signedIn.session.id);
    ctx.redirect(safeNext(binding?.next, appPath));
  });

  router.post(`${appPath}/logout`, async (ctx) => {
    const { fields } = await readForm(ctx);
    const { sessionId } = appState(ctx);
    if (sessionId && checkForm(ctx, deps, fields._csrf)) await signOut(deps.db, sessionId);
    endAppSession(ctx);
    ctx.redirect(`${appPath}/login`);
  });
}
