import { l2AppliesToday } from '../../activities/apply/cap';
import { STATUS_LIST_TTL_S, statusListToken } from '../../activities/mandates/credentials';
import { mandateOfKey, mandatesOfKey } from '../../activities/mandates/mandates';
import type { Services } from '../../activities/services';
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
  routes.add(
    {
      method: 'get',
      path: '/status-lists/:id',
      operationId: 'getStatusList',
      summary: 'A status list of mandate credentials: a Status List Token (IETF Token Status List), no key needed',
      description:
        'Answers `application/statuslist+jwt`: a compact JWS (typ `statuslist+jwt`, ES256, verifiable against GET /.well-known/jwks.json) whose `status_list` is `{bits: 1, lst}`, `lst` the base64url of the ZLIB-compressed bits, index 0 the least significant bit of byte 0; a bit is 1 once its mandate is revoked. A mandate credential names its list and index in `status.status_list` (docs/receipts.md).',
      tag: 'Signing',
      auth: 'none',
      params: IdParamsSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const token = await statusListToken({ db: deps.db, receipts: deps.receipts, publicUrl: deps.config.publicUrl }, params.id);
      ctx.set('Cache-Control', `public, max-age=${STATUS_LIST_TTL_S}`);
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.type = 'application/statuslist+jwt';
      return token;
    },
  );
}
