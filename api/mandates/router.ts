import type { Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';

export function mandateRoutes(routes: Routes): void {
  routes.add({ method: 'get', path: '/mandates', operationId: 'listMandates', summary: 'Mandates granted to this key (not every key of the account)', tag: 'Signing', query: ListQuerySchema });
  routes.add({ method: 'get', path: '/mandates/:id', operationId: 'getMandate', summary: 'One mandate of this key', tag: 'Signing', params: IdParamsSchema, errors: ['not_found'] });
}
