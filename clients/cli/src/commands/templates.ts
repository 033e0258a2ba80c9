// svc templates: the account’s document templates; create, update and delete need the agent_editor flag.
import fs from 'node:fs';
import type { TemplateCreate, TemplateUpdate } from '@svc-agents/sdk';
import { type CommandKit, UsageError } from './kit';

/** A JSON array of widgets from a file, or {"roles", "widgets"} as the app's JSON form takes it. */
function readWidgets(file: string): { widgets: TemplateCreate['widgets']; roles?: string[] } {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (Array.isArray(parsed)) return { widgets: parsed };
  if (parsed && typeof parsed === 'object' && Array.isArray(parsed.widgets)) return parsed;
  throw new UsageError(`${file}: expected a JSON array of widgets, or {"roles": [...], "widgets": [...]}`);
}

const rolesOf = (text: string | undefined) =>
  text
    ?.split(',')
    .map((role) => role.trim())
    .filter(Boolean);

export function templateCommands({ root, act, list, paging }: CommandKit): void {
  const templates = root.command('templates').description('document templates of the account');
  paging(templates.command('list').description('list templates')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listTemplates(options), ['template_id', 'name', 'page_count', 'roles']),
    ),
  );
  templates
    .command('get <id>')
    .description('one template with its fields: the names `docs create --value` fills them by')
    .action(
      act(async ({ client, out }, id: string) => {
        const template = await client.getTemplate(id);
        out.result(template, () =>
          [
            `${template.template_id} ${template.name} (roles: ${template.roles.join(', ')})`,
            ...template.widgets.map(
              (widget) =>
                `  ${widget.id}  ${widget.type}  ${widget.role}${widget.required ? '  required' : ''}${widget.options ? `  options: ${widget.options.join(' | ')}` : ''}`,
            ),
          ].join('\n'),
        );
      }),
    );
  templates
    .command('create')
    .description('a template from a PDF (--pdf, uploaded to your Drive first, or --file drv_…) and its widgets')
    .requiredOption('--name <name>', 'template name')
    .option('--pdf <path>', 'a PDF on this computer: uploaded to your Drive, then used')
    .option('--file <id>', 'a PDF already in your Drive (drv_…)')
    .requiredOption('--widgets <file.json>', 'a JSON array of widgets (or {"roles", "widgets"})')
    .option('--roles <list>', 'signer roles in signing order, separated by commas')
    .action(
      act(async ({ client, out }, options: { name: string; pdf?: string; file?: string; widgets: string; roles?: string }) => {
        if (Boolean(options.pdf) === Boolean(options.file)) throw new UsageError('give --pdf <path> or --file <drv_…>');
        const definition = readWidgets(options.widgets);
        const driveFileId = options.file ?? (await client.uploadAsset({ path: options.pdf! })).drive_file_id;
        const roles = rolesOf(options.roles) ?? definition.roles;
        const template = await client.createTemplate({
          drive_file_id: driveFileId,
          name: options.name,
          widgets: definition.widgets,
          ...(roles ? { roles } : {}),
        });
        out.result(
          template,
          () => `${template.template_id} ${template.name} (${template.roles.join(', ')}; ${template.widgets.length} fields)`,
        );
      }),
    );
  templates
    .command('update <id>')
    .description('change a template’s name, roles or widgets (documents already made keep theirs)')
    .option('--name <name>', 'new name')
    .option('--widgets <file.json>', 'replace every widget')
    .option('--roles <list>', 'signer roles in signing order, separated by commas')
    .action(
      act(async ({ client, out }, id: string, options: { name?: string; widgets?: string; roles?: string }) => {
        const definition = options.widgets ? readWidgets(options.widgets) : undefined;
        const roles = rolesOf(options.roles) ?? definition?.roles;
        const change: TemplateUpdate = {
          ...(options.name ? { name: options.name } : {}),
          ...(definition ? { widgets: definition.widgets } : {}),
          ...(roles ? { roles } : {}),
        };
        if (Object.keys(change).length === 0) throw new UsageError('give --name, --widgets or --roles');
        const template = await client.updateTemplate(id, change);
        out.result(template, () => `${template.template_id} updated`);
      }),
    );
  templates
    .command('delete <id>')
    .description('delete a template for new documents (its documents keep working)')
    .action(
      act(async ({ client, out }, id: string) => {
        const template = await client.deleteTemplate(id);
        out.result(template, () => `${template.template_id} deleted`);
      }),
    );
}
