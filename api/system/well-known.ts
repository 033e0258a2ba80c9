import type Router from '@koa/router';
import type { Services } from '../../activities/services';

/**
 * GET /.well-known/jwks.json: the public keys of every receipt key the service has used (retired
 * ones too, so old receipts keep verifying); anyone verifies a receipt's JWS against them.
 */
export function wellKnownRoutes(router: Router, deps: Services): void {
  router.get('/.well-known/jwks.json', async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.type = 'application/jwk-set+json';
    ctx.body = JSON.stringify(await deps.receipts.jwks());
  });
}
