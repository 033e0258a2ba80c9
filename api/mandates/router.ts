import { l2AppliesToday } from '../../activities/mandates/cap';
import { mandatesOfKey } from '../../activities/mandates/mandates';
import { errors } from '../../lib/errors';
import type { Services } from '../../lib/services';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema } from '../shared/schema';
import { presentMandate } from './presenter';
import { MandateListResponseSchema, MandateResponseSchema } from './schema';

export function mandateRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'get',
      path: '/mandates',
      operationId: 'listMandates',
      summary: 'Mandates granted to this key (not every key of the account)',
      tag: 'Signing',
      response: MandateListResponseSchema,
    },
    async (ctx) => {
      const caller = callerOf(ctx);
      const mandates = await mandatesOfKey(deps.db, caller.apiKey.id);
      return {
        data: await Promise.all(mandates.map(async (m) => presentMandate(m, caller.apiKey, await l2AppliesToday(deps.db, m.id)))),
        next_cursor: null,
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
      const mandate = (await mandatesOfKey(deps.db, caller.apiKey.id)).find((m) => m.id === params.id);
      if (!mandate) throw errors.notFound('No such mandate for this key.');
      return presentMandate(mandate, caller.apiKey, await l2AppliesToday(deps.db, mandate.id));
    },
  );
}
