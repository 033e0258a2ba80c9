import type Router from '@koa/router';
import type { Context } from 'koa';
import { authorize, permits } from '../../../activities/accounts/authorize';
import type { Services } from '../../../activities/services';
import type { TemplateDefinition } from '../../../activities/templates/schema';
import { createTemplate } from '../../../activities/templates/templates';
import { type Principal, Template } from '../../../db/models';
import { type ErrorDetail, errors, ServiceError } from '../../../lib/errors';
import { WIDGET_TYPES } from '../../../lib/pdf/widgets';
import { assertStorableJson } from '../../../lib/text';
import { html, joinHtml, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { dataTable, formErrors, noticeFrom, pageHandler, postedForm, refusal, when } from './common';

const TITLE = 'Templates';
const PDF_LIMIT = 20 * 1024 * 1024;

interface TemplateForm {
  name: string;
  roles: string;
  widgets: string;
}

const EXAMPLE = `[
  // one object per field; "id" is yours to choose, unique in the template
  { "id": "buyer-sign", "type": "signature", "role": "Buyer",
    "page": 1, "x": 72, "y": 650, "width": 200, "height": 40,   // PDF points from the top-left
    "required": true },
  { "id": "buyer-date", "type": "date", "role": "Buyer",
    "page": 1, "x": 300, "y": 660, "width": 120, "height": 20 },
  { "id": "plan", "type": "dropdown", "role": "Buyer", "label": "Plan",
    "page": 1, "x": 72, "y": 600, "width": 160, "height": 20,
    "options": ["Basic", "Premium"] }                              // dropdowns only
]`;

/** A detail's path (widgets.3.type) as a person reads it (widget 4, its "type"). */
function describe(detail: ErrorDetail, widgets: unknown): string {
  const match = /^widgets\.(\d+)(?:\.(.+))?$/.exec(detail.path);
  if (!match) return detail.path ? `${detail.path}: ${detail.message}` : detail.message;
  const index = Number(match[1]);
  const id = Array.isArray(widgets) && typeof widgets[index]?.id === 'string' ? ` (“${widgets[index].id}”)` : '';
  return `Widget ${index + 1}${id}${match[2] ? `, “${match[2]}”` : ''}: ${detail.message}`;
}

/** A template form as posted (its fields and its PDF, up to 20 MB): the JSON form's and the editor's. */
export async function postedTemplate(ctx: Context, deps: Services): Promise<{ fields: Record<string, string>; pdf?: { bytes: Buffer } }> {
  const { fields, files } = await postedForm(ctx, deps, PDF_LIMIT).catch((error) => {
    throw error instanceof ServiceError && error.code === 'payload_too_large'
      ? errors.payloadTooLarge('The PDF is larger than 20 MB.')
      : error;
  });
  return { fields, pdf: files.pdf };
}

export const noPdf = () =>
  errors.invalidRequest('Choose the PDF of the template.', [{ path: 'pdf', message: 'Choose the PDF of the template.' }]);

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
    throw errors.invalidRequest('The widgets are not valid JSON.', [
      { path: 'widgets', message: `Not valid JSON: ${(error as Error).message}` },
    ]);
  }
  // "\u0000" in the JSON text becomes a NUL only here, after the form's own check.
  assertStorableJson(parsed, Array.isArray(parsed) ? 'widgets' : undefined);
  if (Array.isArray(parsed)) return { widgets: parsed };
  if (parsed && typeof parsed === 'object' && 'widgets' in parsed) return parsed as { widgets: unknown; roles?: unknown };
  throw errors.invalidRequest('The widgets must be a JSON list.', [{ path: 'widgets', message: 'Expected a list [ … ] of widgets.' }]);
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
        ['Name', 'Pages', 'Signer roles', 'Fields', 'Created', 'Id', ...(editor ? ['Edit'] : [])],
        templates.map((template) => ({
          attrs: { 'data-testid': 'template-row' },
          cells: [
            template.name,
            template.page_count,
            joinHtml(template.roles, ', '),
            template.widgets.length,
            when(template.created_at),
            html`<code>${template.id}</code>`,
            ...(editor ? [html`<a href="${appPath}/templates/${template.id}/edit" data-testid="template-edit">Edit</a>`] : []),
          ],
        })),
      )
    : html`<p class="muted" data-testid="no-templates">Your account has no templates yet.</p>`;
  const intro = html`<p>A template is a PDF and the fields each signer fills. Agents create documents from it with <code>POST /v1/documents</code>; signer <em>n</em> takes role <em>n</em>.</p>`;
  // Making and changing templates is the editor's (agent_editor): off, only the list shows.
  if (!editor) return html`${intro}${list}`;
  return html`${intro}
<p><a class="button primary" href="${appPath}/templates/new" data-testid="template-new">New template in the visual editor</a></p>
${list}
<section class="card" aria-labelledby="new-template-title"><h2 id="new-template-title">Add a template</h2>
<form method="post" action="${appPath}/templates" enctype="multipart/form-data" class="stack" data-testid="template-form">${hiddenCsrf(csrf)}${errors}
<label for="template-name">Name</label>
<input id="template-name" name="name" required maxlength="200" value="${form.name}" data-testid="template-name">
<label for="template-pdf">PDF, up to 20 MB</label>
<input id="template-pdf" type="file" name="pdf" accept="application/pdf,.pdf" required aria-describedby="template-pdf-help" data-testid="template-pdf">
<p id="template-pdf-help" class="hint">${errors && html`<strong>Choose the PDF again:</strong> browsers do not keep a chosen file after an error. `}Without a password.</p>
<label for="template-roles">Signer roles in signing order (optional)</label>
<input id="template-roles" name="roles" maxlength="2000" value="${form.roles}" aria-describedby="template-roles-help" data-testid="template-roles">
<p id="template-roles-help" class="hint">Separated by commas, for example “Seller, Buyer”. Empty: the roles of the widgets, in the order they first appear.</p>
<label for="template-widgets">Widgets (JSON)</label>
<textarea id="template-widgets" name="widgets" rows="14" required spellcheck="false" aria-describedby="widgets-help" data-testid="template-widgets">${form.widgets}</textarea>
<div id="widgets-help" class="hint help">
<p>A JSON list with one object per field:</p>
<ul>
<li><code>id</code>: your name for the field (letters, digits, <code>_ . -</code>), unique in the template;</li>
<li><code>type</code>: ${joinHtml(
    WIDGET_TYPES.map((type) => html`<code>${type}</code>`),
    ', ',
  )};</li>
<li><code>role</code>: the signer who fills it;</li>
<li><code>page</code>: from 1; <code>x</code>, <code>y</code>, <code>width</code>, <code>height</code>: in PDF points (72 to an inch) from the page’s <strong>top-left</strong> corner;</li>
<li><code>required</code>: <code>true</code> (the default) or <code>false</code>; <code>label</code>: optional text shown to the signer;</li>
<li><code>options</code>: the choices of a <code>dropdown</code> (and only of a dropdown).</li>
</ul>
<p>Signature, initials, date, name and e-mail fill themselves when the signer signs; text, checkbox and dropdown are filled by the signer. For example (the <code>//</code> comments explain; leave them out of your JSON):</p>
<pre tabindex="0" aria-label="Example of a template’s JSON">${EXAMPLE}</pre></div>
<div><button type="submit" class="primary" data-testid="template-create">Add template</button></div></form></section>`;
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
        title: TITLE,
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
          created: 'The template is added. Agents can use it now.',
          deleted: 'The template is deleted. Documents made from it keep working.',
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
