import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { isStorableText, printable, unstorableInput } from '../../lib/text';

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The route parameter (`path.id`) holding the refused text, as the routers would decode it; else the whole path. */
function parameterName(routers: Router[], ctx: Context): string {
  for (const router of routers) {
    for (const layer of router.match(ctx.path, ctx.method).pathAndMethod) {
      const params = layer.params(ctx.path, layer.captures(ctx.path));
      const bad = Object.entries(params).find(([, value]) => !isStorableText(value));
      if (bad) return `path.${bad[0]}`;
    }
  }
  return 'path';
}

/**
 * Refuses decoded path segments and query names or values holding text PostgreSQL refuses (NUL),
 * with 400 naming the field, before any router reads them: every route is covered at once.
 */
export function storableUrl(routers: Router[]) {
  return (ctx: Context, next: Next) => {
    // Nothing percent-encoded and nothing refused as sent: decoding changes nothing, so neither the
    // query nor the path needs reading (the usual request).
    if (!ctx.url.includes('%') && isStorableText(ctx.url)) return next();
    for (const [name, value] of Object.entries(ctx.query)) {
      const values = Array.isArray(value) ? value : [value ?? ''];
      if (!isStorableText(name) || values.some((item) => !isStorableText(item))) throw unstorableInput(`query.${printable(name)}`);
    }
    if (ctx.path.split('/').some((segment) => !isStorableText(decode(segment)))) throw unstorableInput(parameterName(routers, ctx));
    return next();
  };
}
