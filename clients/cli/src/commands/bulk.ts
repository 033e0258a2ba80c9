// svc bulk: send one template to many signers (items from a JSON or CSV file), with a progress bar while it runs.
import fs from 'node:fs';
import path from 'node:path';
import type { Bulk, BulkCreate } from '@svc-agents/sdk';
import { type CommandKit, fieldValue, positiveInt, UsageError } from './kit';

type BulkItem = BulkCreate['items'][number];

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new UsageError('the CSV file ends inside a quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ''));
}

/**
 * The items of a CSV file: a header row naming `signer1_name`, `signer1_email`, `signer2_name` …
 * (signers in signing order), and optionally `name`, `strict_order` (true/false) and `value:<field>` (a
 * template field filled by its name, as `--value`); one item per row.
 */
export function itemsFromCsv(text: string): BulkItem[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) throw new UsageError('the CSV file is empty');
  // A field's name keeps its case (`value:Start-Date`); the other columns are read in any case.
  const columns = header.map((cell) => (/^value:/i.test(cell.trim()) ? `value:${cell.trim().slice(6)}` : cell.trim().toLowerCase()));
  const signerNumbers = [...new Set(columns.flatMap((column) => /^signer(\d+)_(name|email)$/.exec(column)?.[1] ?? []).map(Number))].sort(
    (a, b) => a - b,
  );
  if (signerNumbers.length === 0) throw new UsageError('the CSV header needs signer1_name and signer1_email columns (signer2_… for more)');
  for (const column of columns)
    if (!/^signer\d+_(name|email)$/.test(column) && column !== 'name' && column !== 'strict_order' && !/^value:.+/.test(column))
      throw new UsageError(`unknown CSV column "${column}" (expected name, strict_order, signerN_name, signerN_email, value:<field>)`);
  return rows.map((cells) => {
    const cell = (column: string) => {
      const index = columns.indexOf(column);
      return index < 0 ? '' : (cells[index] ?? '').trim();
    };
    const signers = signerNumbers
      .map((n) => ({ name: cell(`signer${n}_name`), email: cell(`signer${n}_email`) }))
      .filter((signer) => signer.name !== '' || signer.email !== '');
    const item: BulkItem = { signers };
    if (cell('name')) item.name = cell('name');
    if (cell('strict_order')) item.strict_order = /^(true|yes|1)$/i.test(cell('strict_order'));
    const values = columns.filter((column) => column.startsWith('value:') && cell(column) !== '');
    if (values.length > 0) item.values = Object.fromEntries(values.map((column) => [column.slice(6), fieldValue(cell(column))]));
    return item;
  });
}

/** Items from a file: a JSON array of items (or `{items: […]}`), or a CSV file (by its .csv name). */
export function readItems(file: string): BulkItem[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (path.extname(file).toLowerCase() === '.csv') return itemsFromCsv(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not JSON (${(error as Error).message}); give a .csv name for a CSV file`);
  }
  const items = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) throw new UsageError(`${file} must hold a JSON array of items, or {"items": [...]}`);
  return items as BulkItem[];
}

function summary(bulk: Bulk): string {
  const lines = [
    `${bulk.bulk_id} ${bulk.status}: ${bulk.created} created, ${bulk.failed} failed, ${bulk.pending} pending of ${bulk.total}`,
  ];
  for (const item of bulk.items)
    lines.push(
      item.status === 'failed'
        ? `  #${item.index} failed: ${item.error?.code}: ${item.error?.message}`
        : `  #${item.index} ${item.status} ${item.document_id ?? ''}`.trimEnd(),
    );
  return lines.join('\n');
}

export function bulkCommands({ root, act, paging }: CommandKit): void {
  const bulk = root.command('bulk').description('bulk send: one template to many signers');
  bulk
    .command('send')
    .description('make (and with --send send) one document per item of a JSON or CSV file; shows a progress bar until done')
    .requiredOption('--template <id>', 'template id (tpl_…)')
    .requiredOption('--name <name>', 'document name (an item’s own name overrides it)')
    .requiredOption(
      '--items <file>',
      'a JSON array of items ({"signers": [{"name", "email"}…], "name"?, "strict_order"?, "values"?}), or a .csv file with columns signer1_name, signer1_email, signer2_name … and optionally name, strict_order, value:<field>',
    )
    .option('--send', 'send each document at once')
    .option('--no-wait', 'answer with the bulk_id at once instead of waiting for it')
    .option('--timeout <seconds>', 'how long to wait for it', positiveInt, 1800)
    .action(
      act(
        async (
          { client, out },
          options: { template: string; name: string; items: string; send?: boolean; wait: boolean; timeout: number },
        ) => {
          const items = readItems(options.items);
          const started = await client.bulkSend({ template_id: options.template, name: options.name, send: options.send, items });
          if (!options.wait) {
            out.result(
              started,
              () => `${started.bulk_id} ${started.status}: ${started.total} items; follow it with: svc bulk show ${started.bulk_id}`,
            );
            return;
          }
          const bar = out.progress('bulk', started.total, 'items');
          const done = await client.waitForBulk(started.bulk_id, {
            timeoutMs: options.timeout * 1000,
            onProgress: (seen) => bar.update(seen.created + seen.failed),
          });
          bar.stop();
          out.result(done, () => summary(done));
        },
      ),
    );
  paging(bulk.command('show <id>').description('a bulk send’s status, counts and items')).action(
    act(async ({ client, out }, id: string, options: { limit?: number; cursor?: string }) => {
      const shown = await client.bulk(id, options);
      out.result(shown, () => summary(shown) + (shown.next_cursor ? `\nmore: --cursor ${shown.next_cursor}` : ''));
    }),
  );
}
