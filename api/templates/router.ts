import type { Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';

export function templateRoutes(routes: Routes): void {
  routes.add({ method: 'get', path: '/templates', operationId: 'listTemplates', summary: 'Templates of this account', tag: 'Templates', query: ListQuerySchema });
  routes.add({ method: 'get', path: '/templates/:id', operationId: 'getTemplate', summary: 'One template with its widgets', tag: 'Templates', params: IdParamsSchema, errors: ['not_found'] });
}
