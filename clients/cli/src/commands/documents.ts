// svc docs: create, send, sign (L1 asks the principal, L2 within a mandate), download.
import fs from 'node:fs';
import { humanBytes } from '../output';
import { type CommandKit, namedValue, person, seconds, UsageError } from './kit';

export function documentCommands({ root, act, list, paging }: CommandKit): void {
  const docs = root.command('docs').description('documents: create, send, sign, download');
  paging(docs.command('list').description('documents of the account (or --inbound: sent to your principal)'))
    .option('--inbound', 'documents where your principal is a signer')
    .action(
      act(async ({ client, out }, options: { limit?: number; cursor?: string; inbound?: boolean }) =>
        list(
          out,
          await client.listDocuments({
            limit: options.limit,
            cursor: options.cursor,
            direction: options.inbound ? 'inbound' : 'outbound',
          }),
          ['document_id', 'name', 'status', 'created_at'],
        ),
      ),
    );
  docs
    .command('get <id>')
    .description('status, signers and sign links of a document')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getDocument(id))));
  docs
    .command('create')
    .description('a document from a template (--template) or from an uploaded PDF (--file with --widgets)')
    .requiredOption('--name <name>', 'document name')
    .option('--template <id>', 'template id (tpl_…)')
    .option('--file <id>', 'a PDF in your Drive (drv_…)')
    .option('--widgets <file.json>', 'with --file: a JSON array of widgets')
    .requiredOption('--signer <"Name <email>">', 'a signer, in signing order (repeat)', person)
    .option('--value <name=value>', 'fill a field by name, locked (repeat; true/false tick a checkbox)', namedValue)
    .option('--editable <name=value>', 'fill a text or dropdown field by name, which its signer may change (repeat)', namedValue)
    .option('--send', 'send it at once')
    .option('--strict', 'strict signing order')
    .option('--expires-at <iso>', 'when it expires unsigned (ISO 8601, e.g. 2027-01-31T17:00:00Z)')
    .option('--remind-after <duration>', 'first reminder to pending signers after this long (ISO 8601, e.g. P2D)')
    .option('--remind-every <duration>', 'then one every this long (default: --remind-after)')
    .option('--remind-max <n>', 'reminders in all (default 1)', (value) => Number.parseInt(value, 10))
    .action(
      act(
        async (
          { client, out },
          options: {
            name: string;
            template?: string;
            file?: string;
            widgets?: string;
            signer: Array<{ name: string; email: string }>;
            value?: Record<string, string | boolean>;
            editable?: Record<string, string | boolean>;
            send?: boolean;
            strict?: boolean;
            expiresAt?: string;
            remindAfter?: string;
            remindEvery?: string;
            remindMax?: number;
          },
        ) => {
          if ((options.remindEvery || options.remindMax) && !options.remindAfter)
            throw new UsageError('--remind-every and --remind-max need --remind-after');
          if (Boolean(options.template) === Boolean(options.file)) throw new UsageError('give --template or --file (with --widgets)');
          if (options.file && !options.widgets) throw new UsageError('--file needs --widgets <file.json>');
          const widgets = options.widgets ? JSON.parse(fs.readFileSync(options.widgets, 'utf8')) : undefined;
          const document = await client.createDocument({
            ...(options.template ? { template_id: options.template } : { drive_file_id: options.file, widgets }),
            name: options.name,
            signers: options.signer,
            ...(options.value || options.editable
              ? {
                  values: {
                    ...options.value,
                    ...Object.fromEntries(Object.entries(options.editable ?? {}).map(([name, value]) => [name, { value, editable: true }])),
                  },
                }
              : {}),
            send: options.send,
            strict_order: options.strict,
            ...(options.expiresAt ? { expires_at: options.expiresAt } : {}),
            ...(options.remindAfter
              ? { reminders: { first_after: options.remindAfter, every: options.remindEvery, max: options.remindMax } }
              : {}),
          } as never);
          out.result(
            document,
            () =>
              `${document.document_id} ${document.status}\n${document.signers.map((s) => `  ${s.name} <${s.email}> ${s.sign_url ?? ''}`).join('\n')}`,
          );
        },
      ),
    );
  docs
    .command('send <id>')
    .description('send a draft to its signers')
    .action(act(async ({ client, out }, id: string) => out.result(await client.sendDocument(id), () => `${id} sent`)));
  docs
    .command('void <id>')
    .description('void a sent document: its sign links, L1 requests and offers end; pending signers are told the reason')
    .requiredOption('--reason <text>', 'why (mailed to the pending signers, shown on their sign links)')
    .action(
      act(async ({ client, out }, id: string, options: { reason: string }) =>
        out.result(await client.voidDocument(id, options.reason), () => `${id} voided`),
      ),
    );
  docs
    .command('remind <id>')
    .description('e-mail the pending signers (under strict order, the one whose turn it is) a reminder now')
    .action(
      act(async ({ client, out }, id: string) => {
        const result = await client.remindSigners(id);
        out.result(result, () => `${id}: reminded ${result.reminded.map((s) => `${s.name} <${s.email}>`).join(', ') || 'nobody'}`);
      }),
    );
  docs
    .command('download <id>')
    .description('save the current sealed PDF (SHA-256 checked)')
    .option('--out <folder>', 'folder to write into', '.')
    .action(
      act(async ({ client, out }, id: string, options: { out: string }) => {
        const bar = out.progress('download', undefined);
        const saved = await client.saveDocument(id, options.out, (done) => bar.update(done));
        bar.stop();
        out.result(saved, () => `${saved.path} (${humanBytes(saved.size)}, sha256 ${saved.sha256})`);
      }),
    );
  docs
    .command('request-sign <id>')
    .description('L1: ask your principal to confirm in the app; prints the confirm_url (also e-mailed to them)')
    .requiredOption('--reason <text>', 'why the principal should sign')
    .action(
      act(async ({ client, out }, id: string, options: { reason: string }) => {
        const request = await client.requestSign(id, options.reason);
        out.result(request, () => `${request.sign_request_id} ${request.status}: your principal confirms at ${request.confirm_url}`);
      }),
    );
  docs
    .command('sign <id>')
    .description('L2: apply your principal’s stored signature now, within its mandate')
    .requiredOption('--reason <text>', 'why you sign')
    .option('--wait <seconds>', 'how long to wait for a signature still being applied (0: answer at once)', seconds, 300)
    .action(
      act(async ({ client, out }, id: string, options: { reason: string; wait: number }) => {
        const result = await client.signAsPrincipal(id, options.reason, { waitMs: options.wait * 1000 });
        out.result(result, () =>
          result.status === 'processing'
            ? `${id} processing: the signature is still being applied; see its outcome with: svc docs get ${id}`
            : `${id} ${result.status} under mandate ${result.mandate_id} (document ${result.document_status})`,
        );
      }),
    );
  paging(docs.command('audit <id>').description('the audit trail of a document, oldest first')).action(
    act(async ({ client, out }, id: string, options: { limit?: number; cursor?: string }) =>
      list(out, await client.getDocumentAudit(id, options), ['at', 'action', 'actor', 'ip']),
    ),
  );
  paging(docs.command('sign-requests <id>').description('your sign requests on a document')).action(
    act(async ({ client, out }, id: string, options: { limit?: number; cursor?: string }) =>
      list(out, await client.listSignRequests(id, options), ['sign_request_id', 'status', 'reason', 'expires_at']),
    ),
  );
}
