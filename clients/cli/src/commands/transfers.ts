// svc transfers (packages that unlock when a document is signed or every recipient accepts) and svc verify.
import fs from 'node:fs';
import type { Output } from '../output';
import { renderReport } from '../verify';
import { type CommandKit, collect, EXIT, Outcome, person, UsageError } from './kit';

export function transferCommands({ root, act, list, paging }: CommandKit): void {
  const transfers = root.command('transfers').description('packages of Drive files for recipients');
  transfers
    .command('create')
    .description('a package: shared at offer, or unlocking when a document completes (--document) or every recipient accepts (--accept)')
    .requiredOption('--name <name>', 'package name')
    .requiredOption('--file <id>', 'a Drive file (drv_…; repeat)', collect)
    .requiredOption('--recipient <"Name <email>">', 'a recipient (repeat)', person)
    .option('--document <id>', 'sign-to-unlock: the document whose completion unlocks the files')
    .option('--accept', 'accept-to-unlock: the files unlock when every recipient accepted')
    .action(
      act(
        async (
          { client, out },
          options: { name: string; file: string[]; recipient: Array<{ name: string; email: string }>; document?: string; accept?: boolean },
        ) => {
          const transfer = await client.createTransfer({
            name: options.name,
            drive_file_ids: options.file,
            recipients: options.recipient,
            document_id: options.document,
            requires_acceptance: options.accept,
          });
          out.result(
            transfer,
            () => `${transfer.transfer_id} ${transfer.mode} ${transfer.status}; offer it with: svc transfers offer ${transfer.transfer_id}`,
          );
        },
      ),
    );
  transfers
    .command('offer <id>')
    .description('mint and e-mail each recipient’s claim link; the tokens are printed once')
    .action(
      act(async ({ client, out }, id: string) => {
        const offered = await client.offerTransfer(id, true);
        out.result(offered, () =>
          [
            `${offered.transfer_id} ${offered.status} (keep these: they are shown only once)`,
            ...offered.recipients.map((r) => `  ${r.email}  ${r.claim_url}`),
          ].join('\n'),
        );
      }),
    );
  transfers
    .command('claim <token>')
    .description('claim a package by its token (bound to you when it was sent to your e-mail)')
    .action(act(async ({ client, out }, token: string) => out.result(await client.claimTransfer(token))));
  transfers
    .command('accept <token>')
    .description('accept a package (accept-to-unlock)')
    .action(act(async ({ client, out }, token: string) => out.result(await client.acceptTransfer(token))));
  transfers
    .command('download <token-or-id>')
    .description('save every file of a released package (a claim token, or a transfer id you sent or claimed), SHA-256 checked')
    .option('--out <folder>', 'folder to write into', '.')
    .action(
      act(async ({ client, out }, target: string, options: { out: string }) => {
        const bars = new Map<string, ReturnType<Output['progress']>>();
        const saved = await client.downloadTransfer(
          target.startsWith('xfr_') ? { transfer_id: target } : target,
          options.out,
          (file, done) => {
            let bar = bars.get(file.name);
            if (!bar) {
              bar = out.progress(file.name, file.size);
              bars.set(file.name, bar);
            }
            bar.update(done);
          },
        );
        for (const bar of bars.values()) bar.stop();
        out.table(saved, ['path', 'size', 'sha256'], saved);
      }),
    );
  transfers
    .command('cancel <id>')
    .description('cancel a package and revoke its claim links')
    .action(act(async ({ client, out }, id: string) => out.result(await client.cancelTransfer(id), () => `${id} cancelled`)));
  paging(transfers.command('list').description('packages you sent or received'))
    .option('--direction <sent|received>', 'only sent or only received')
    .action(
      act(async ({ client, out }, options: { limit?: number; cursor?: string; direction?: 'sent' | 'received' }) =>
        list(out, await client.listTransfers(options), ['transfer_id', 'name', 'mode', 'status', 'can_release', 'direction']),
      ),
    );
  transfers
    .command('get <id>')
    .description('one package')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getTransfer(id))));

  root
    .command('verify <file>')
    .description('check a PDF like a relying party: valid, invalid or indeterminate, and whether this service issued it (no key needed)')
    .addHelpText(
      'after',
      '\nPrints the report (JSON with --json). Exit code 0 only when the verdict is valid; 1 when it is\ninvalid or indeterminate (or the service refused the file, e.g. invalid_pdf), 2 when there is no\nsuch file, 3 when the service cannot be reached.',
    )
    .action(
      act(async ({ client, out }, file: string) => {
        if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
        if (!fs.statSync(file).isFile()) throw new UsageError(`not a file: ${file}`);
        const report = await client.verifyPdf(fs.readFileSync(file));
        out.result(report, () => renderReport(report));
        if (report.verdict !== 'valid') throw new Outcome(EXIT.refused);
      }),
    );
}
