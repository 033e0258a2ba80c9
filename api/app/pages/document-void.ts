import type Router from '@koa/router';
import { voidDocument } from '../../../activities/documents/void';
import type { Services } from '../../../activities/services';
import { pageHandler, postedForm, principalActor } from './common';

/**
 * POST <appPath>/documents/:id/void (fields `reason` and `_csrf`): the document's owner voids it
 * (the same rule as POST /v1/documents/:id/void) and is sent back to its page. Anyone else gets the
 * refusal as a page: 404 when they do not see the document, 403 `not_owner` when they sign it.
 */
export function documentVoidRoutes(router: Router, deps: Services, appPath: string): void {
  router.post(
    `${appPath}/documents/:id/void`,
    pageHandler(appPath, 'app.document_void.title', async ({ ctx, principal }) => {
      const form = await postedForm(ctx, deps, 16 * 1024);
      const voided = await voidDocument(deps, { principal }, ctx.params.id, form.fields.reason ?? '', principalActor(ctx, principal));
      ctx.redirect(`${appPath}/documents/${encodeURIComponent(voided.id)}?done=voided`);
    }),
  );
}
