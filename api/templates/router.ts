import { agentActor } from '../../activities/documents/documents';
import type { Services } from '../../activities/services';
import { createTemplate, deleteTemplate, drivePdf, findTemplate, updateTemplate } from '../../activities/templates/templates';
import { Template } from '../../db/models';
import { page } from '../../lib/paging';
import { requestMeta } from '../http/request';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { presentTemplate } from './presenter';
import { TemplateCreateSchema, TemplateListResponseSchema, TemplateResponseSchema, TemplateUpdateSchema } from './schema';

/** Making and changing templates is the editor's work: behind the `agent_editor` flag (SPEC: off answers 403 feature_disabled). */
export const TEMPLATE_EDIT_NEEDS = { scope: 'documents:write', flag: 'agent_editor' } as const;

export function templateRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'get',
      path: '/templates',
      operationId: 'listTemplates',
      summary: 'Templates of this account, newest first (deleted ones are not listed)',
      tag: 'Templates',
      needs: { scope: 'templates:read' },
      query: ListQuerySchema,
      response: TemplateListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await page(
        Template.query(deps.db).where('templates.tenant_id', callerOf(ctx).tenant.id).whereNull('templates.deleted_at'),
        { ...query, table: 'templates' },
      );
      return { data: items.map(presentTemplate), next_cursor };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/templates/:id',
      operationId: 'getTemplate',
      summary: 'One template with its roles and widgets (also a deleted one, which its documents name)',
      tag: 'Templates',
      needs: { scope: 'templates:read' },
      params: IdParamsSchema,
      response: TemplateResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => presentTemplate(await findTemplate(deps.db, callerOf(ctx).tenant.id, params.id)),
  );
  routes.add(
    {
      method: 'post',
      path: '/templates',
      operationId: 'createTemplate',
      summary: 'Create a template from a PDF in Drive, with its signer roles and widgets per role',
      description:
        'Upload the PDF with POST /assets first. The PDF goes through the safe intake (checked, normalised, active content removed; else 422 invalid_pdf); every widget must lie on a page of it. Needs the `agent_editor` flag.',
      tag: 'Templates',
      needs: TEMPLATE_EDIT_NEEDS,
      body: TemplateCreateSchema,
      response: TemplateResponseSchema,
      status: 201,
      errors: ['not_found', 'invalid_pdf'],
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const { drive_file_id, ...definition } = body;
      const template = await createTemplate(deps, {
        tenantId: caller.tenant.id,
        pdf: await drivePdf(deps, caller.principal.id, drive_file_id),
        definition,
        createdBy: caller.principal.id,
        actor: agentActor(caller, requestMeta(ctx)),
      });
      return presentTemplate(template);
    },
  );
  routes.add(
    {
      method: 'patch',
      path: '/templates/:id',
      operationId: 'updateTemplate',
      summary: 'Change a template’s name, roles or widgets (documents already made keep theirs)',
      description: 'Widgets given replace all of them and are checked against the template’s PDF. Needs the `agent_editor` flag.',
      tag: 'Templates',
      needs: TEMPLATE_EDIT_NEEDS,
      params: IdParamsSchema,
      body: TemplateUpdateSchema,
      response: TemplateResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const template = await updateTemplate(deps, {
        tenantId: caller.tenant.id,
        id: params.id,
        change: body,
        actor: agentActor(caller, requestMeta(ctx)),
      });
      return presentTemplate(template);
    },
  );
  routes.add(
    {
      method: 'delete',
      path: '/templates/:id',
      operationId: 'deleteTemplate',
      summary: 'Delete a template: no longer listed or usable for new documents; its documents keep working',
      description: 'The template stays readable by id, with `deleted_at` set. Needs the `agent_editor` flag.',
      tag: 'Templates',
      needs: TEMPLATE_EDIT_NEEDS,
      params: IdParamsSchema,
      response: TemplateResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      return presentTemplate(
        await deleteTemplate(deps.db, { tenantId: caller.tenant.id, id: params.id, actor: agentActor(caller, requestMeta(ctx)) }),
      );
    },
  );
}
