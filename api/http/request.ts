import type { Context } from 'koa';
import type { Actor } from '../../activities/audit/audit';

/** Who made the request, for the audit trail. */
export function requestMeta(ctx: Context): { ip: string; userAgent: string } {
  return { ip: ctx.ip, userAgent: ctx.get('user-agent') };
}

export function actorFrom(ctx: Context, actor: Omit<Actor, 'ip' | 'userAgent'>): Actor {
  return { ...actor, ...requestMeta(ctx) };
}
