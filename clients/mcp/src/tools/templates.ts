// Templates: create from a Drive PDF with widgets per role, update, delete (the agent_editor flag).
import { inputOf, READ, type ToolKit, WRITE } from './kit';

export function templateTools({ tool, client }: ToolKit): void {
  tool(
    'create_template',
    'Create a template from a PDF in the Drive (upload it with upload_file first) with its signer roles in signing order and the widgets each role fills (PDF points from the page’s top-left, pages from 1). Answers 403 feature_disabled when the agent_editor flag is off.',
    inputOf('createTemplate', { describe: { drive_file_id: 'A PDF uploaded with upload_file (drv_…)' } }),
    WRITE,
    (input) => client.createTemplate(input),
  );
  tool(
    'get_template',
    'One template: its roles and its fields, each by the name (id) create_document’s values fill it by, with its type, role, whether it is required and a dropdown’s or radio group’s options.',
    inputOf('getTemplate', { path: { id: 'template_id' }, describe: { template_id: 'tpl_…' } }),
    READ,
    (input) => client.getTemplate(input.template_id),
  );
  tool(
    'update_template',
    'Change a template’s name, roles or widgets (widgets given replace them all). Documents already made from it keep theirs.',
    inputOf('updateTemplate', { path: { id: 'template_id' }, describe: { template_id: 'tpl_…' } }),
    WRITE,
    ({ template_id, ...change }) => client.updateTemplate(template_id, change),
  );
  tool(
    'delete_template',
    'Delete a template: it is no longer listed or usable for new documents; documents made from it keep working and it stays readable by id.',
    inputOf('deleteTemplate', { path: { id: 'template_id' }, describe: { template_id: 'tpl_…' } }),
    { ...WRITE, destructiveHint: true },
    (input) => client.deleteTemplate(input.template_id),
  );
}
