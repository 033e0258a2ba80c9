import type { Context, Next } from 'koa';
import { sessionPrincipal } from '../../activities/principals/sessions';
import type { Services } from '../../activities/services';
import type { Principal } from '../../db/models';
import type { FlagSnapshot } from '../../lib/config/flags';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { mac, verifyMac } from '../../lib/secrets/signed';
import { readSignedCookie, secureCookies, setSignedCookie } from '../http/cookies';

export const APP_COOKIE = 'svc_app';

export interface AppState {
  principal?: Principal;
  sessionId?: string;
  csrf?: string;
  /** The deployment's flags, for the navigation of a signed-in principal's page. */
  flags?: FlagSnapshot;
}

export function appState(ctx: Context): AppState {
  return ctx.state as AppState;
}

export function startAppSession(ctx: Context, deps: Services, sessionId: string): void {
  setSignedCookie(ctx, deps.secret, {
    name: APP_COOKIE,
    purpose: 'app-session',
    payload: { sid: sessionId },
    ttlMs: deps.config.durations.appSessionMs,
    path: '/',
    secure: secureCookies(ctx, deps.config),
  });
}

export function endAppSession(ctx: Context): void {
  ctx.cookies.set(APP_COOKIE, '', { path: '/', expires: new Date(0), httpOnly: true, sameSite: 'lax' });
}

/** The principal signed in to the app on this request (by its session cookie), wherever the request goes. */
export async function sessionOf(ctx: Context, deps: Services): Promise<Principal | undefined> {
  const cookie = readSignedCookie<{ sid: string; exp: number }>(ctx, deps.secret, APP_COOKIE, 'app-session');
  return cookie ? sessionPrincipal(deps.db, cookie.sid) : undefined;
}

/** Paths of the service's own that are never app pages, even with the app at the root: no session is read there. */
const SHARED = /^\/(static|files)\//;

/**
 * Loads the signed-in principal (if any) and the form token bound to their session, on the app's
 * paths only (the app may be at '', the root of its host): static files and downloads need no query.
 */
export function appSession(deps: Services, appPath: string) {
  return async (ctx: Context, next: Next) => {
    const inApp = ctx.path === appPath || ctx.path.startsWith(`${appPath}/`);
    if (!inApp || SHARED.test(ctx.path)) return next();
    const cookie = readSignedCookie<{ sid: string; exp: number }>(ctx, deps.secret, APP_COOKIE, 'app-session');
    const principal = cookie ? await sessionPrincipal(deps.db, cookie.sid) : undefined;
    if (principal && cookie)
      Object.assign(ctx.state, {
        principal,
        sessionId: cookie.sid,
        csrf: mac(deps.secret, 'csrf', cookie.sid),
        flags: deps.config.flags.values,
      } satisfies AppState);
    await next();
  };
}

/**
 * A post from this app's own pages: its Origin is this site's (or absent, as clients other than
 * browsers send none), and Sec-Fetch-Site, which no page can set, does not say another site, not even
 * one on the same registrable domain (`same-site`: a sibling subdomain could otherwise post here
 * under SameSite=Lax cookies).
 */
export function checkOrigin(ctx: Context, deps: Services): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  // Koa 3's ctx.origin is the Origin header itself, so this site's own origin is built here.
  const origin = ctx.get('origin');
  // A page under Referrer-Policy no-referrer (the claim page) makes the browser send `Origin: null` on
  // its own form posts; Sec-Fetch-Site then says whether the post came from here.
  if (origin === 'null') return site === 'same-origin';
  return !origin || origin === new URL(deps.config.appUrl).origin || origin === `${ctx.protocol}://${ctx.host}`;
}

/** The same check for the sign page's and the claim binding's JSON posts: 403 `cross_origin` otherwise. */
export function requireSameOrigin(ctx: Context, deps: Services): void {
  if (!checkOrigin(ctx, deps)) throw errors.crossOrigin(t('app.session.cross_origin'));
}

/** A form post of this session (the token is a MAC of the session id) from this origin. */
export function checkForm(ctx: Context, deps: Services, token: string | undefined): boolean {
  if (!checkOrigin(ctx, deps)) return false;
  const { sessionId } = appState(ctx);
  return Boolean(sessionId && token && verifyMac(deps.secret, 'csrf', sessionId, token));
}

/** Where to return after signing in: only a path of this app (never another site). */
export function safeNext(next: unknown, appPath: string): string {
  const fits = typeof next === 'string' && next.length <= MAX_NEXT;
  return fits && next.startsWith(`${appPath}/`) && !next.startsWith('//') && !next.includes('\\') ? next : `${appPath}/`;
}

/** A return path longer than this is dropped: it would make a Location header no client accepts. */
export const MAX_NEXT = 2048;

/** Pages that need a signed-in principal send everyone else to sign in, then back. */
export function requireLogin(ctx: Context, appPath: string): boolean {
  if (appState(ctx).principal) return true;
  // The way back is kept only when it fits in a header (safeNext refuses a longer one anyway).
  ctx.redirect(ctx.originalUrl.length <= MAX_NEXT ? `${appPath}/login?next=${encodeURIComponent(ctx.originalUrl)}` : `${appPath}/login`);
  return false;
}
