import type { Services } from '../../activities/services';
import { findTemplate } from '../../activities/templates/templates';
import { Template } from '../../db/models';
import { page } from '../../lib/paging';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { presentTemplate } from './presenter';
import { TemplateListResponseSchema, TemplateResponseSchema } from './schema';

export function templateRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'get',
      path: '/templates',
      operationId: 'listTemplates',
      summary: 'Templates of this account, newest first',
      tag: 'Templates',
      needs: { scope: 'templates:read' },
      query: ListQuerySchema,
      response: TemplateListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await page(Template.query(deps.db).where('templates.tenant_id', callerOf(ctx).tenant.id), {
        ...query,
        table: 'templates',
      });
      return { data: items.map(presentTemplate), next_cursor };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/templates/:id',
      operationId: 'getTemplate',
      summary: 'One template with its roles and widgets',
      tag: 'Templates',
      needs: { scope: 'templates:read' },
      params: IdParamsSchema,
      response: TemplateResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => presentTemplate(await findTemplate(deps.db, callerOf(ctx).tenant.id, params.id)),
  );
}
