// svc templates: the account’s document templates.
import type { CommandKit } from './kit';

export function templateCommands({ root, act, list, paging }: CommandKit): void {
  const templates = root.command('templates').description('document templates of the account');
  paging(templates.command('list').description('list templates')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listTemplates(options), ['template_id', 'name', 'page_count', 'roles']),
    ),
  );
  templates
    .command('get <id>')
    .description('one template with its widgets')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getTemplate(id))));
}
