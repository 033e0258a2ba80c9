// Bulk send: one template to many signers, followed by its bulk_id.
import { inputOf, READ, type ToolKit, WRITE } from './kit';

export function bulkTools({ tool, client }: ToolKit): void {
  tool(
    'bulk_send',
    'Make one document per item from a template (each item: its signers in signing order, optionally its own name); send: true also sends each. Answers at once with a bulk_id; follow it with get_bulk. An item that does not fit the template is refused on its own, the others go on. Sending signs nothing.',
    inputOf('bulkSend', { describe: { template_id: 'tpl_…' } }),
    WRITE,
    (input) => client.bulkSend(input),
  );
  tool(
    'get_bulk',
    'A bulk send: running or completed, how many items were created, failed or are pending, and each item’s document_id or error (paged by limit and cursor).',
    inputOf('getBulk', { path: { id: 'bulk_id' }, describe: { bulk_id: 'blk_…' } }),
    READ,
    (input) => client.bulk(input.bulk_id, { limit: input.limit, cursor: input.cursor }),
  );
}
