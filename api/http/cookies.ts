import type { Context } from 'koa';
import { readToken, signToken } from '../../activities/secrets/signed';

/** A MAC-signed, expiring cookie value (httpOnly, SameSite=Lax, Secure on https). */
export function setSignedCookie(ctx: Context, secret: Buffer, options: { name: string; purpose: string; payload: Record<string, string | number>; ttlMs: number; path: string; secure: boolean }): void {
  const exp = Date.now() + options.ttlMs;
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
