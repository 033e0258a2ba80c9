import type { Middleware } from 'koa';
import type { Config } from '../../lib/config/config';
import { PSEUDO_LOCALE, withLocale } from '../../lib/i18n';

/**
 * The locale of a request: every page, error page and message it renders formats in it
 * (lib/i18n's withLocale). English for now (the languages come with issue 41); outside production,
 * `Accept-Language: en-XA` picks the pseudo-locale, which wraps every catalogue string in ⟦ ⟧ so a
 * string written outside the catalogue shows (translators and test/catalogue.ts use it).
 */
export function requestLocale(config: Pick<Config, 'env'>): Middleware {
  const pseudoAllowed = config.env !== 'production';
  return (ctx, next) => {
    const wanted = pseudoAllowed && /(^|,)\s*en-XA\b/i.test(ctx.get('accept-language'));
    // English is what a request without a locale formats in: no context to carry on the hot path.
    if (!wanted) return next();
    return withLocale(PSEUDO_LOCALE, next);
  };
}
