import type { Context } from 'koa';
import { readToken, signToken } from '../../lib/secrets/signed';

/**
 * Cookies are Secure when this request came over https, or whenever the service's public or app
 * address is https: then browsers reach it over TLS even if the proxy's header is not trusted.
 */
export function secureCookies(ctx: Context, config: { publicUrl: string; appUrl: string }): boolean {
  return ctx.secure || [config.publicUrl, config.appUrl].some((url) => url.startsWith('https:'));
}

/** A MAC-signed, expiring cookie value (httpOnly, SameSite=Lax, Secure as `secureCookies` says). */
export function setSignedCookie(
  ctx: Context,
  secret: Buffer,
  options: { name: string; purpose: string; payload: Record<string, string | number>; ttlMs: number; path: string; secure: boolean },
): void {
  const exp = Date.now() + options.ttlMs;
  // Koa refuses a Secure cookie on a plain-http connection (TLS ended at the proxy) unless told it is secure.
  if (options.secure) ctx.cookies.secure = true;
  ctx.cookies.set(options.name, signToken(secret, options.purpose, { ...options.payload, exp }), {
    httpOnly: true,
    sameSite: 'lax',
    secure: options.secure,
    path: options.path,
    expires: new Date(exp),
    overwrite: true,
  });
}

export function readSignedCookie<T extends { exp: number }>(ctx: Context, secret: Buffer, name: string, purpose: string): T | undefined {
  return readToken<T>(secret, purpose, ctx.cookies.get(name));
}
