import type Router from '@koa/router';
import type { Context } from 'koa';
import { authorize, permits } from '../../../activities/accounts/authorize';
import type { Services } from '../../../activities/services';
import type { TemplateDefinition } from '../../../activities/templates/schema';
import { createTemplate } from '../../../activities/templates/templates';
import { type Principal, Template } from '../../../db/models';
import { type ErrorDetail, errors, ServiceError } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { WIDGET_TYPES } from '../../../lib/pdf/widgets';
import { assertStorableJson } from '../../../lib/text';
import { html, joinHtml, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { dataTable, formErrors, noticeFrom, pageHandler, postedForm, refusal, when } from './common';

const TITLE = 'app.templates.title';
const PDF_LIMIT = 20 * 1024 * 1024;

interface TemplateForm {
  name: string;
  roles: string;
  widgets: string;
}

/** The example of the widgets' JSON, its comments in words (`{` and `}` quoted in the catalogue's text). */
const example = () => t('app.templates.example');

/** A detail's path (widgets.3.type) as a person reads it (widget 4, its "type"). */
function describe(detail: ErrorDetail, widgets: unknown): string {
  const match = /^widgets\.(\d+)(?:\.(.+))?$/.exec(detail.path);
  if (!match) return detail.path ? t('app.form.detail', { path: detail.path, message: detail.message }) : detail.message;
  const index = Number(match[1]);
  const id = Array.isArray(widgets) && typeof widgets[index]?.id === 'string' ? (widgets[index].id as string) : undefined;
  const params = { n: index + 1, id: id ?? '', field: match[2] ?? '', message: detail.message };
  if (id !== undefined) return t(match[2] ? 'app.templates.detail.id_field' : 'app.templates.detail.id', params);
  return t(match[2] ? 'app.templates.detail.field' : 'app.templates.detail.widget', params);
}

/** A template form as posted (its fields and its PDF, up to 20 MB): the JSON form's and the editor's. */
export async function postedTemplate(ctx: Context, deps: Services): Promise<{ fields: Record<string, string>; pdf?: { bytes: Buffer } }> {
  const { fields, files } = await postedForm(ctx, deps, PDF_LIMIT).catch((error) => {
    throw error instanceof ServiceError && error.code === 'payload_too_large'
      ? errors.payloadTooLarge(t('app.templates.too_large'))
      : error;
  });
  return { fields, pdf: files.pdf };
}

export const noPdf = () => errors.invalidRequest(t('app.templates.no_pdf'), [{ path: 'pdf', message: t('app.templates.no_pdf') }]);

/** The roles typed in a form, comma-separated; undefined when none. */
export function rolesOf(text: string): string[] | undefined {
  const roles = text
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  return roles.length ? roles : undefined;
}

/** The textarea holds a list of widgets, or {"roles", "widgets"} as the admin command takes it. */
function parseWidgets(text: string): { widgets: unknown; roles?: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw errors.invalidRequest(t('app.templates.not_json'), [
      { path: 'widgets', message: t('app.templates.not_json_detail', { error: (error as Error).message }) },
    ]);
  }
  // "\u0000" in the JSON text becomes a NUL only here, after the form's own check.
  assertStorableJson(parsed, Array.isArray(parsed) ? 'widgets' : undefined);
  if (Array.isArray(parsed)) return { widgets: parsed };
  if (parsed && typeof parsed === 'object' && 'widgets' in parsed) return parsed as { widgets: unknown; roles?: unknown };
  throw errors.invalidRequest(t('app.templates.not_list'), [{ path: 'widgets', message: t('app.templates.not_list_detail') }]);
}

function renderTemplates(
  appPath: string,
  csrf: string,
  templates: Template[],
  form: TemplateForm,
  editor: boolean,
  errors?: SafeHtml,
): SafeHtml {
  const list = templates.length
    ? dataTable(
        'templates',
        [
          ...(['name', 'pages', 'roles', 'fields', 'created', 'id'] as const).map((column) => t(`app.templates.column.${column}`)),
          ...(editor ? [t('app.templates.column.edit')] : []),
        ],
        templates.map((template) => ({
          attrs: { 'data-testid': 'template-row' },
          cells: [
            template.name,
            template.page_count,
            joinHtml(template.roles, ', '),
            template.widgets.length,
            when(template.created_at),
            html`<code>${template.id}</code>`,
            ...(editor
              ? [html`<a href="${appPath}/templates/${template.id}/edit" data-testid="template-edit">${t('app.templates.edit')}</a>`]
              : []),
          ],
        })),
      )
    : html`<p class="muted" data-testid="no-templates">${t('app.templates.none')}</p>`;
  const n = html`<em>${t('app.templates.n')}</em>`;
  const intro = html`<p>${tHtml('app.templates.intro', { endpoint: html`<code>POST /v1/documents</code>`, n })}</p>`;
  const code = (name: string) => html`<code>${name}</code>`;
  // Making and changing templates is the editor's (agent_editor): off, only the list shows.
  if (!editor) return html`${intro}${list}`;
  return html`${intro}
<p><a class="button primary" href="${appPath}/templates/new" data-testid="template-new">${t('app.templates.new')}</a></p>
${list}
<section class="card" aria-labelledby="new-template-title"><h2 id="new-template-title">${t('app.templates.add_title')}</h2>
<form method="post" action="${appPath}/templates" enctype="multipart/form-data" class="stack" data-testid="template-form">${hiddenCsrf(csrf)}${errors}
<label for="template-name">${t('app.templates.name')}</label>
<input id="template-name" name="name" required maxlength="200" value="${form.name}" data-testid="template-name">
<label for="template-pdf">${t('app.templates.pdf')}</label>
<input id="template-pdf" type="file" name="pdf" accept="application/pdf,.pdf" required aria-describedby="template-pdf-help" data-testid="template-pdf">
<p id="template-pdf-help" class="hint">${errors && html`${tHtml('app.templates.pdf_again', { again: html`<strong>${t('app.templates.pdf_again_strong')}</strong>` })} `}${t('app.templates.no_password')}</p>
<label for="template-roles">${t('app.templates.roles')}</label>
<input id="template-roles" name="roles" maxlength="2000" value="${form.roles}" aria-describedby="template-roles-help" data-testid="template-roles">
<p id="template-roles-help" class="hint">${t('app.templates.roles_help')}</p>
<label for="template-widgets">${t('app.templates.widgets')}</label>
<textarea id="template-widgets" name="widgets" rows="14" required spellcheck="false" aria-describedby="widgets-help" data-testid="template-widgets">${form.widgets}</textarea>
<div id="widgets-help" class="hint help">
<p>${t('app.templates.help.list')}</p>
<ul>
<li>${tHtml('app.templates.help.id', { id: code('id'), chars: code('_ . -') })}</li>
<li>${tHtml('app.templates.help.type', {
    type: code('type'),
    types: joinHtml(
      WIDGET_TYPES.map((type) => code(type)),
      ', ',
    ),
  })}</li>
<li>${tHtml('app.templates.help.role', { role: code('role') })}</li>
<li>${tHtml('app.templates.help.page', {
    page: code('page'),
    x: code('x'),
    y: code('y'),
    width: code('width'),
    height: code('height'),
    corner: html`<strong>${t('app.templates.help.top_left')}</strong>`,
  })}</li>
<li>${tHtml('app.templates.help.required', { required: code('required'), true: code('true'), false: code('false'), label: code('label') })}</li>
<li>${tHtml('app.templates.help.options', { options: code('options'), dropdown: code('dropdown'), radio: code('radio') })}</li>
</ul>
<p>${tHtml('app.templates.help.fill', { comment: code('//') })}</p>
<pre tabindex="0" aria-label="${t('app.templates.example_label')}">${example()}</pre></div>
<div><button type="submit" class="primary" data-testid="template-create">${t('app.templates.add')}</button></div></form></section>`;
}

/** The tenant's templates: list, and add one from a PDF and its widgets. */
export function templateRoutes(router: Router, deps: Services, appPath: string): void {
  async function send(
    ctx: Context,
    principal: Principal,
    csrf: string,
    form: TemplateForm,
    errors?: SafeHtml,
    status = 200,
    notice?: ReturnType<typeof noticeFrom>,
  ) {
    const templates = await Template.query(deps.db)
      .where({ tenant_id: principal.tenant_id })
      .whereNull('deleted_at')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc');
    sendPage(
      ctx,
      renderPage({
        title: t(TITLE),
        appPath,
        principal,
        csrf,
        flags: deps.config.flags.values,
        body: renderTemplates(appPath, csrf, templates, form, permits(null, { flag: 'agent_editor' }, deps.config.flags.values), errors),
        notice,
        current: '/templates',
      }),
      status,
    );
  }

  router.get(
    `${appPath}/templates`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      await send(
        ctx,
        principal,
        csrf,
        { name: '', roles: '', widgets: '' },
        undefined,
        200,
        noticeFrom(ctx, {
          created: t('app.templates.created'),
          deleted: t('app.templates.deleted'),
        }),
      );
    }),
  );

  router.post(
    `${appPath}/templates`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      authorize(null, { flag: 'agent_editor' }, deps.config.flags.values);
      const form: TemplateForm = { name: '', roles: '', widgets: '' };
      let widgets: unknown;
      try {
        const { fields, pdf } = await postedTemplate(ctx, deps);
        Object.assign(form, { name: fields.name ?? '', roles: fields.roles ?? '', widgets: fields.widgets ?? '' });
        if (!pdf) throw noPdf();
        const parsed = parseWidgets(form.widgets);
        widgets = parsed.widgets;
        const roles = form.roles.trim() ? (rolesOf(form.roles) ?? []) : parsed.roles;
        // The rule checks the shape; the page only passes on what was typed.
        const definition = { name: form.name, widgets, ...(roles === undefined ? {} : { roles }) };
        await createTemplate(deps, {
          tenantId: principal.tenant_id,
          pdf: pdf.bytes,
          definition: definition as TemplateDefinition,
          createdBy: principal.id,
        });
        ctx.redirect(`${appPath}/templates?done=created`);
      } catch (error) {
        const refused = refusal(error);
        await send(
          ctx,
          principal,
          csrf,
          form,
          formErrors(refused, (detail) => describe(detail, widgets)),
          refused.status,
        );
      }
    }),
  );
}
