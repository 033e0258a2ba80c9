import { type BulkView, readBulk, startBulk } from '../../activities/bulk/bulk';
import type { Services } from '../../activities/services';
import { type ApiContext, callerOf, type Routes } from '../http/route';
import { IdParamsSchema } from '../shared/schema';
import { presentBulk, presentBulkAccepted } from './presenter';
import { BulkAcceptedSchema, BulkCreateSchema, BulkQuerySchema, BulkResponseSchema } from './schema';

/** What a kept 202 of a bulk POST waits for: its bulk, answered again to a retry with the same Idempotency-Key. */
interface BulkResume {
  bulkId: string;
}

export function bulkRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Bulk send' } as const;
  /** The 202 of a bulk send: where to follow it, kept with its Idempotency-Key so a retry answers this bulk again. */
  const accepted = (ctx: ApiContext, view: Pick<BulkView, 'bulk' | 'counts'>) => {
    ctx.status = 202;
    ctx.set('Location', `/v1/bulk/${view.bulk.id}`);
    ctx.state.resume = { bulkId: view.bulk.id } satisfies BulkResume;
    return presentBulkAccepted(view);
  };

  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents/bulk',
      operationId: 'bulkSend',
      summary: 'Make (and send) one document per item from a template, in the background; answers 202 with a bulk_id',
      description:
        'Each item’s document is made through the same rule as POST /documents, a few at once (SVC_BULK_CONCURRENCY); follow it at GET /bulk/:id (the Location header). A malformed body is refused as a whole (400); an item the rule refuses (signers that do not fit the template’s roles …) is that item’s `error`. With the same Idempotency-Key a retry answers the same bulk and makes nothing again. An account has at most SVC_BULK_TENANT_RUNNING bulk sends running at once: one more is refused (429 `rate_limited`, `details` naming `bulk_sends_running`, with Retry-After), and its items are made on a lane of their own, after other accounts’ interactive work.',
      needs: { scope: 'documents:write' },
      body: BulkCreateSchema,
      response: BulkAcceptedSchema,
      status: 202,
      errors: ['not_found', 'rate_limited', 'service_unavailable'],
      resume: async (ctx, resume) => {
        const caller = callerOf(ctx);
        return accepted(ctx, await readBulk(deps.db, caller, (resume as BulkResume).bulkId, { limit: 1 }));
      },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const bulk = await startBulk(deps, caller, {
        templateId: body.template_id,
        name: body.name,
        send: body.send ?? false,
        items: body.items,
      });
      return accepted(ctx, { bulk, counts: { created: 0, failed: 0, pending: bulk.total } });
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/bulk/:id',
      operationId: 'getBulk',
      summary: 'A bulk send’s progress: its status, counts and a page of its items (document id or error each)',
      needs: { scope: 'documents:read' },
      params: IdParamsSchema,
      query: BulkQuerySchema,
      response: BulkResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params, query }) => presentBulk(await readBulk(deps.db, callerOf(ctx), params.id, query)),
  );
}
