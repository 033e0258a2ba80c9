import type Router from '@koa/router';
import type { Context } from 'koa';
import { authorize } from '../../../activities/accounts/authorize';
import type { Services } from '../../../activities/services';
import type { TemplateDefinition } from '../../../activities/templates/schema';
import { createTemplate, deleteTemplate, findTemplate, updateTemplate } from '../../../activities/templates/templates';
import type { Principal, Template } from '../../../db/models';
import { type ErrorDetail, errors } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { WIDGET_TYPES } from '../../../lib/pdf/widgets';
import { assertStorableJson } from '../../../lib/text';
import { html, type SafeHtml } from '../../http/html';
import { sendPdf } from '../files';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { formErrors, nameWord, noticeFrom, pageHandler, postedForm, principalActor, refusal } from './common';
import { noPdf, postedTemplate, rolesOf } from './templates';

/** Widgets of up to 2,000 fields as JSON, with the form's other fields. */
const FORM_LIMIT = 1024 * 1024;

interface EditorForm {
  name: string;
  roles: string;
  widgets: string;
}

/** The roles field: names separated by commas, in signing order. */
function widgetsOf(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '[]');
  } catch {
    throw errors.invalidRequest(t('app.editor.unreadable'), [{ path: 'widgets', message: t('app.editor.not_json') }]);
  }
  assertStorableJson(parsed, 'widgets');
  return parsed;
}

function describe(detail: ErrorDetail, widgets: unknown): string {
  const match = /^widgets\.(\d+)(?:\.(.+))?$/.exec(detail.path);
  if (!match) return detail.path ? t('app.form.detail', { path: detail.path, message: detail.message }) : detail.message;
  const widget = Array.isArray(widgets) ? widgets[Number(match[1])] : undefined;
  const named = typeof widget?.id === 'string';
  const params = { id: named ? widget.id : '', n: Number(match[1]) + 1, field: match[2] ?? '', message: detail.message };
  if (named) return t(match[2] ? 'app.editor.detail.id_field' : 'app.editor.detail.id', params);
  return t(match[2] ? 'app.editor.detail.n_field' : 'app.editor.detail.n', params);
}

function renderEditor(appPath: string, csrf: string, options: { template?: Template; form: EditorForm; errors?: SafeHtml }): SafeHtml {
  const { template, form } = options;
  const action = template ? `${appPath}/templates/${template.id}/edit` : `${appPath}/templates/new`;
  const pdfUrl = template ? `${appPath}/templates/${template.id}/template.pdf` : '';
  return html`<link rel="stylesheet" href="/static/template-editor.css">
<p>${t('app.editor.intro')}${template && html` ${t('app.editor.intro_template')}`}</p>
<form method="post" action="${action}" ${template ? html`` : html`enctype="multipart/form-data"`} class="stack editor-form" data-testid="editor-form">${hiddenCsrf(csrf)}${options.errors}
<label for="editor-name">${t('app.templates.name')}</label>
<input id="editor-name" name="name" required maxlength="200" value="${form.name}" data-testid="editor-name">
${
  template
    ? html``
    : html`<label for="editor-pdf">${t('app.templates.pdf')}</label>
<input id="editor-pdf" type="file" name="pdf" accept="application/pdf,.pdf" required data-testid="editor-pdf">`
}
<label for="editor-roles">${t('app.editor.roles')}</label>
<input id="editor-roles" name="roles" maxlength="2000" value="${form.roles}" data-testid="editor-roles" placeholder="${t('app.editor.roles_placeholder')}">
<input type="hidden" name="widgets" id="editor-widgets" value="${form.widgets}" data-testid="editor-widgets">
<div class="editor-tools" role="toolbar" aria-label="${t('app.editor.palette')}">
<label for="editor-role">${t('app.editor.role')}</label><select id="editor-role" data-testid="editor-role"></select>
<label for="editor-kind">${t('app.editor.kind')}</label><select id="editor-kind" data-testid="editor-kind">${WIDGET_TYPES.map((type) => html`<option value="${type}">${nameWord('widget', type)}</option>`)}</select>
<span class="palette-field" data-testid="palette-field" aria-label="${t('app.editor.drag_label')}">${t('app.editor.drag')}</span>
<span class="hint" id="editor-count" data-testid="editor-count" aria-live="polite"></span>
</div>
<fieldset class="editor-props" id="editor-props" data-testid="field-props" disabled>
<legend>${t('app.editor.props.legend')}</legend>
<p class="hint" id="field-props-hint" data-testid="field-props-hint">${t('app.editor.props.none')}</p>
<label for="field-name">${t('app.editor.props.name')}</label>
<input id="field-name" data-testid="field-name" maxlength="64" pattern="[A-Za-z0-9_.\-]{1,64}" aria-describedby="field-name-hint">
<span class="hint" id="field-name-hint">${t('app.editor.props.name_hint')}</span>
<label for="field-label">${t('app.editor.props.label')}</label>
<input id="field-label" data-testid="field-label" maxlength="200">
<label class="inline"><input type="checkbox" id="field-required" data-testid="field-required"> ${t('app.editor.props.required')}</label>
<label for="field-options" id="field-options-label">${t('app.editor.props.options')}</label>
<textarea id="field-options" data-testid="field-options" rows="4" maxlength="20000"></textarea>
<p class="notice error" id="field-props-error" data-testid="field-props-error" role="alert" hidden></p>
</fieldset>
<div class="editor-pages" id="editor-pages" data-testid="editor-pages" data-pdf-url="${pdfUrl}"><p class="hint">${t(template ? 'app.editor.loading' : 'app.editor.choose_pdf')}</p></div>
<div class="actions"><button type="submit" class="primary" data-testid="editor-save">${t(template ? 'app.editor.save' : 'app.templates.add')}</button> <a href="${appPath}/templates">${t('app.editor.back')}</a></div>
</form>
${
  template &&
  html`<form method="post" action="${appPath}/templates/${template.id}/delete" class="editor-delete">${hiddenCsrf(csrf)}<p class="hint">${t('app.editor.delete_hint')}</p><button type="submit" class="secondary" data-testid="editor-delete">${t('app.editor.delete')}</button></form>`
}
<script type="module" src="/static/template-editor.js"></script>`;
}

/**
 * The visual template editor (`agent_editor`): the PDF's pages with fields placed, moved and resized
 * by dragging, saved as the template's widgets JSON through this CSRF-protected form.
 */
export function templateEditorRoutes(router: Router, deps: Services, appPath: string): void {
  const flags = deps.config.flags.values;
  // The same gate as the API: with agent_editor off these pages answer 403 feature_disabled.
  const gate = () => authorize(null, { flag: 'agent_editor' }, flags);
  const editable = async (principal: Principal, id: string) => {
    const template = await findTemplate(deps.db, principal.tenant_id, id);
    if (template.deleted_at) throw errors.notFound(t('app.editor.not_found'));
    return template;
  };
  const show = (
    ctx: Context,
    request: { principal: Principal; csrf: string },
    options: { template?: Template; form: EditorForm; errors?: SafeHtml; status?: number },
  ) =>
    sendPage(
      ctx,
      renderPage({
        title: options.template ? t('app.editor.edit_title', { name: options.template.name }) : t('app.editor.new_title'),
        appPath,
        principal: request.principal,
        csrf: request.csrf,
        flags,
        body: renderEditor(appPath, request.csrf, options),
        notice: noticeFrom(ctx, { created: t('app.templates.created'), saved: t('app.editor.saved') }),
        current: '/templates',
      }),
      options.status ?? 200,
    );
  const formOf = (template: Template): EditorForm => ({
    name: template.name,
    roles: template.roles.join(', '),
    widgets: JSON.stringify(template.widgets),
  });

  router.get(
    `${appPath}/templates/new`,
    pageHandler(appPath, 'app.editor.new_title', async ({ ctx, principal, csrf }) => {
      gate();
      show(ctx, { principal, csrf }, { form: { name: '', roles: '', widgets: '[]' } });
    }),
  );
  router.post(
    `${appPath}/templates/new`,
    pageHandler(appPath, 'app.editor.new_title', async ({ ctx, principal, csrf }) => {
      gate();
      const form: EditorForm = { name: '', roles: '', widgets: '[]' };
      let widgets: unknown;
      try {
        const { fields, pdf } = await postedTemplate(ctx, deps);
        Object.assign(form, { name: fields.name ?? '', roles: fields.roles ?? '', widgets: fields.widgets ?? '[]' });
        if (!pdf) throw noPdf();
        widgets = widgetsOf(form.widgets);
        const roles = rolesOf(form.roles);
        const template = await createTemplate(deps, {
          tenantId: principal.tenant_id,
          pdf: pdf.bytes,
          definition: { name: form.name, widgets, ...(roles ? { roles } : {}) } as TemplateDefinition,
          createdBy: principal.id,
          actor: principalActor(ctx, principal),
        });
        ctx.redirect(`${appPath}/templates/${template.id}/edit?done=created`);
      } catch (error) {
        const refused = refusal(error);
        ctx.set(refused.headers);
        show(
          ctx,
          { principal, csrf },
          { form, errors: formErrors(refused, (detail) => describe(detail, widgets)), status: refused.status },
        );
      }
    }),
  );
  router.get(
    `${appPath}/templates/:id/edit`,
    pageHandler(appPath, 'app.editor.page_title', async ({ ctx, principal, csrf }) => {
      gate();
      const template = await editable(principal, ctx.params.id);
      show(ctx, { principal, csrf }, { template, form: formOf(template) });
    }),
  );
  router.get(
    `${appPath}/templates/:id/template.pdf`,
    pageHandler(appPath, 'app.editor.page_title', async ({ ctx, principal }) => {
      gate();
      const template = await editable(principal, ctx.params.id);
      sendPdf(ctx, await deps.blobs.get(template.pdf_sha256), `${template.name}.pdf`, template.pdf_sha256, 'inline');
    }),
  );
  router.post(
    `${appPath}/templates/:id/edit`,
    pageHandler(appPath, 'app.editor.page_title', async ({ ctx, principal, csrf }) => {
      gate();
      const template = await editable(principal, ctx.params.id);
      const form = formOf(template);
      let widgets: unknown;
      try {
        const { fields } = await postedForm(ctx, deps, FORM_LIMIT);
        Object.assign(form, { name: fields.name ?? '', roles: fields.roles ?? '', widgets: fields.widgets ?? '[]' });
        widgets = widgetsOf(form.widgets);
        await updateTemplate(deps, {
          tenantId: principal.tenant_id,
          id: template.id,
          change: { name: form.name, roles: rolesOf(form.roles), widgets } as Parameters<typeof updateTemplate>[1]['change'],
          actor: principalActor(ctx, principal),
        });
        ctx.redirect(`${appPath}/templates/${template.id}/edit?done=saved`);
      } catch (error) {
        const refused = refusal(error);
        ctx.set(refused.headers);
        show(
          ctx,
          { principal, csrf },
          { template, form, errors: formErrors(refused, (detail) => describe(detail, widgets)), status: refused.status },
        );
      }
    }),
  );
  router.post(
    `${appPath}/templates/:id/delete`,
    pageHandler(appPath, 'app.editor.page_title', async ({ ctx, principal }) => {
      gate();
      await postedForm(ctx, deps);
      await deleteTemplate(deps.db, { tenantId: principal.tenant_id, id: ctx.params.id, actor: principalActor(ctx, principal) });
      ctx.redirect(`${appPath}/templates?done=deleted`);
    }),
  );
}
