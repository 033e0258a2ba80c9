import { mandateOfKey, mandatesOfKey } from '../../activities/mandates/mandates';
import type { Services } from '../../activities/services';
import { l2AppliesToday } from '../../activities/signing/cap';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { presentMandate } from './presenter';
import { MandateListResponseSchema, MandateResponseSchema } from './schema';

export function mandateRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'get',
      path: '/mandates',
      operationId: 'listMandates',
      summary: 'Mandates granted to this key (not every key of the account), newest first',
      tag: 'Signing',
      query: ListQuerySchema,
      response: MandateListResponseSchema,
    },
    async (ctx, { query }) => {
      const caller = callerOf(ctx);
      const { items, next_cursor } = await mandatesOfKey(deps.db, caller.apiKey.id, query);
      return {
        data: await Promise.all(items.map(async (m) => presentMandate(m, caller.apiKey, await l2AppliesToday(deps.db, m.id)))),
        next_cursor,
      };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/mandates/:id',
      operationId: 'getMandate',
      summary: 'One mandate of this key',
      tag: 'Signing',
      params: IdParamsSchema,
      response: MandateResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      const mandate = await mandateOfKey(deps.db, caller.apiKey.id, params.id);
      return presentMandate(mandate, caller.apiKey, await l2AppliesToday(deps.db, mandate.id));
    },
  );
}
