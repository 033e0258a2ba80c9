import fs from 'node:fs';
import { SvcClient, SvcError, VERSION } from '@svc-agents/sdk';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { configPath, resolveSettings, writeConfig } from './config';
import { createOutput, humanBytes, type Output, type Streams } from './output';
import { renderReport } from './verify';

/**
 * Exit codes: 0 done, 1 the API refused (or `svc verify`: the PDF is not valid), 2 the command line
 * is wrong, 3 the service could not be reached.
 */
export const EXIT = { ok: 0, refused: 1, usage: 2, network: 3 } as const;

class UsageError extends Error {}

/** The command printed its answer; it ends with this exit code (`svc verify` of a PDF that is not valid). */
class Outcome extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/** `Ann Example <ann@example.com>` (or a bare e-mail) as a signer or recipient. */
function person(value: string, previous: Array<{ name: string; email: string }> = []) {
  const match = /^\s*(.*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(value) ?? /^\s*()([^\s<>]+@[^\s<>]+)\s*$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected "Name <e-mail>" or an e-mail');
  return [...previous, { name: match[1] || match[2].split('@')[0], email: match[2] }];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a positive whole number');
  return number;
}

function seconds(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('expected a whole number of seconds (0 or more)');
  return number;
}

/** The program: every command builds its client from the global options, the environment or `svc login`. */
export function program(io: Streams) {
  const root = new Command('svc')
    .description('The Agents API from a terminal: documents, signing by mandate, contacts and offers, Drive and transfers, webhooks.')
    .version(VERSION, '-V, --version')
    .addOption(new Option('--api-key <key>', 'API key (else $SVC_API_KEY, else `svc login`)'))
    .addOption(new Option('--base-url <url>', 'service address (else $SVC_BASE_URL, else `svc login`, else http://localhost:3000)'))
    .option('--json', 'print JSON (for scripts) instead of tables')
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io.out.write(text), writeErr: (text) => io.err.write(text) })
    .exitOverride();

  const context = () => {
    const options = root.opts<{ apiKey?: string; baseUrl?: string; json?: boolean }>();
    const settings = resolveSettings(options);
    const out = createOutput(Boolean(options.json), io);
    return { client: new SvcClient(settings), out, settings };
  };
  /** A command's action with its client and output; errors reach the exit-code mapping in run(). */
  const act =
    <A extends unknown[]>(run: (c: { client: SvcClient; out: Output }, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      await run(context(), ...args);
    };
  const list = (out: Output, page: { data: Array<Record<string, unknown>>; next_cursor: string | null }, columns: string[]) => {
    out.table(page.data, columns, page);
    if (!out.json && page.next_cursor) io.err.write(`more: --cursor ${page.next_cursor}\n`);
  };
  const paging = (command: Command) =>
    command
      .option('--limit <n>', 'items per page (1–100)', positiveInt)
      .option('--cursor <cursor>', 'the next_cursor of the previous page');

  root
    .command('login')
    .description('check an API key and keep it (with the base URL) in the config file, readable by you only')
    .requiredOption('--key <key>', 'the API key (svc_…)')
    .option('--url <url>', 'the service address')
    .action(async (options: { key: string; url?: string }) => {
      const settings = resolveSettings({ apiKey: options.key, baseUrl: options.url ?? root.opts().baseUrl });
      const me = await new SvcClient(settings).me();
      writeConfig({ apiKey: options.key, baseUrl: settings.baseUrl });
      const out = createOutput(Boolean(root.opts().json), io);
      out.result(
        { config: configPath(), key: me.key, principal: me.principal },
        () => `Logged in as ${me.principal.name} <${me.principal.email}> (key ${me.key.prefix}…); saved to ${configPath()}`,
      );
    });

  root
    .command('me')
    .description('the calling key, its principal, plan, scopes, flags and mandate')
    .action(
      act(async ({ client, out }) => {
        const me = await client.me();
        out.result(me, () =>
          [
            `principal  ${me.principal.name} <${me.principal.email}>`,
            `key        ${me.key.label} (${me.key.prefix}…)`,
            `plan       ${me.plan}`,
            `scopes     ${me.scopes.join(', ')}`,
            `levels     ${me.allowed_confirmation_levels.join(', ') || 'none (no mandate)'}`,
          ].join('\n'),
        );
      }),
    );

  const templates = root.command('templates').description('document templates of the account');
  paging(templates.command('list').description('list templates')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, (await client.listTemplates(options)) as never, ['template_id', 'name', 'page_count', 'roles']),
    ),
  );
  templates
    .command('get <id>')
    .description('one template with its widgets')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getTemplate(id))));

  const docs = root.command('docs').description('documents: create, send, sign, download');
  paging(docs.command('list').description('documents of the account (or --inbound: sent to your principal)'))
    .option('--inbound', 'documents where your principal is a signer')
    .action(
      act(async ({ client, out }, options: { limit?: number; cursor?: string; inbound?: boolean }) =>
        list(
          out,
          (await client.listDocuments({
            limit: options.limit,
            cursor: options.cursor,
            direction: options.inbound ? 'inbound' : 'outbound',
          })) as never,
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
    .option('--send', 'send it at once')
    .option('--strict', 'strict signing order')
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
            send?: boolean;
            strict?: boolean;
          },
        ) => {
          if (Boolean(options.template) === Boolean(options.file)) throw new UsageError('give --template or --file (with --widgets)');
          if (options.file && !options.widgets) throw new UsageError('--file needs --widgets <file.json>');
          const widgets = options.widgets ? JSON.parse(fs.readFileSync(options.widgets, 'utf8')) : undefined;
          const document = await client.createDocument({
            ...(options.template ? { template_id: options.template } : { drive_file_id: options.file, widgets }),
            name: options.name,
            signers: options.signer,
            send: options.send,
            strict_order: options.strict,
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
  paging(docs.command('sign-requests <id>').description('your sign requests on a document')).action(
    act(async ({ client, out }, id: string, options: { limit?: number; cursor?: string }) =>
      list(out, (await client.listSignRequests(id, options)) as never, ['sign_request_id', 'status', 'reason', 'expires_at']),
    ),
  );

  const contacts = root.command('contacts').description('agent contacts between principals');
  paging(contacts.command('list').description('your contacts and invitations')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, (await client.listContacts(options)) as never, ['contact_id', 'counterparty_email', 'direction', 'status']),
    ),
  );
  contacts
    .command('get <id>')
    .description('one contact')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getContact(id))));
  contacts
    .command('invite')
    .description('invite another principal by e-mail')
    .requiredOption('--email <email>', 'their e-mail')
    .requiredOption('--name <name>', 'their name')
    .option('--inbox-url <url>', 'https URL for this relationship’s events')
    .action(
      act(async ({ client, out }, options: { email: string; name: string; inboxUrl?: string }) => {
        const contact = await client.inviteContact({ email: options.email, name: options.name, inbox_url: options.inboxUrl });
        out.result(contact, () => `${contact.contact_id} invited; they accept at ${contact.accept_url}`);
      }),
    );
  contacts
    .command('accept <id-or-token>')
    .description('accept an invitation (your contact id, or the token of its accept_url)')
    .action(
      act(async ({ client, out }, value: string) => {
        const contact = value.startsWith('ct_') ? await client.acceptContact(value) : await client.acceptContactByToken(value);
        out.result(contact, () => `${contact.contact_id} ${contact.status}`);
      }),
    );
  contacts
    .command('revoke <id>')
    .description('revoke a contact on both sides')
    .action(act(async ({ client, out }, id: string) => out.result(await client.revokeContact(id), () => `${id} revoked`)));

  const offers = root.command('offers').description('offers of sent documents between contacts');
  paging(offers.command('list').description('offers to and from you'))
    .option('--direction <inbound|outbound>', 'only offers made to you (inbound) or by you (outbound)')
    .option('--status <status>', 'only offers in this state')
    .action(
      act(async ({ client, out }, options: { limit?: number; cursor?: string; direction?: 'inbound' | 'outbound'; status?: never }) =>
        list(out, (await client.listOffers(options)) as never, ['offer_id', 'direction', 'document_name', 'status', 'expires_at']),
      ),
    );
  offers
    .command('get <id>')
    .description('one offer')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getOffer(id))));
  offers
    .command('propose <document-id>')
    .description('offer a sent document to a contact’s principal')
    .requiredOption('--contact <id>', 'your contact id (ct_…)')
    .requiredOption('--terms <text>', 'the terms')
    .option('--human', 'require the principal’s own confirmation (human_signature_required)')
    .action(
      act(async ({ client, out }, documentId: string, options: { contact: string; terms: string; human?: boolean }) => {
        const offer = await client.proposeContract(documentId, {
          contact_id: options.contact,
          terms: options.terms,
          human_signature_required: options.human,
        });
        out.result(offer, () => `${offer.offer_id} ${offer.status} (pre_sign_hash ${offer.pre_sign_hash})`);
      }),
    );
  for (const [verb, call, help] of [
    ['ack', 'ackOffer', 'acknowledge an offer made to you'],
    ['accept', 'acceptOffer', 'accept: signs within an L2 mandate, or escalates to your principal'],
    ['decline', 'declineOffer', 'decline an offer made to you'],
    ['escalate', 'escalateOffer', 'ask your principal to confirm in the app'],
  ] as const) {
    offers
      .command(`${verb} <id>`)
      .description(help)
      .action(
        act(async ({ client, out }, id: string) => {
          // accept waits (up to 5 minutes) for a signature still being applied, as docs sign does.
          const offer = await client[call](id);
          out.result(
            offer,
            () => `${offer.offer_id} ${offer.status}${offer.confirm_url ? `: your principal confirms at ${offer.confirm_url}` : ''}`,
          );
        }),
      );
  }

  const assets = root.command('assets').description('files for your Drive');
  assets
    .command('upload <files...>')
    .description('upload files to your Drive (streamed, with a progress bar on a terminal)')
    .action(
      act(async ({ client, out }, files: string[]) => {
        const uploaded = [];
        for (const file of files) {
          if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
          const bar = out.progress(file, fs.statSync(file).size);
          try {
            uploaded.push(await client.uploadAsset({ path: file, onProgress: (done) => bar.update(done) }));
          } finally {
            bar.stop();
          }
        }
        out.table(uploaded as never, ['drive_file_id', 'name', 'kind', 'size', 'sha256'], uploaded);
      }),
    );
  const drive = root.command('drive').description('your Drive');
  paging(drive.command('list').description('Drive files')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, (await client.listDrive(options)) as never, ['drive_file_id', 'name', 'kind', 'size', 'created_at']),
    ),
  );
  drive
    .command('get <id>')
    .description('one Drive file')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getDriveFile(id))));
  drive
    .command('delete <id>')
    .description('remove a Drive file')
    .action(act(async ({ client, out }, id: string) => out.result(await client.deleteDriveFile(id), () => `${id} deleted`)));

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
        out.table(saved as never, ['path', 'size', 'sha256'], saved);
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
        list(out, (await client.listTransfers(options)) as never, ['transfer_id', 'name', 'mode', 'status', 'can_release', 'direction']),
      ),
    );
  transfers
    .command('get <id>')
    .description('one package')
    .action(act(async ({ client, out }, id: string) => out.result(await client.getTransfer(id))));

  root
    .command('verify <file>')
    .description('check a PDF: its signatures and timestamps, and whether this service issued it (no key needed)')
    .addHelpText(
      'after',
      '\nPrints the report (JSON with --json). Exit code 0 when the PDF is valid, 1 when it is not valid\n(or the service refused it, e.g. invalid_pdf), 2 when there is no such file, 3 when the service\ncannot be reached.',
    )
    .action(
      act(async ({ client, out }, file: string) => {
        if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
        if (!fs.statSync(file).isFile()) throw new UsageError(`not a file: ${file}`);
        const report = await client.verifyPdf(fs.readFileSync(file));
        out.result(report, () => renderReport(report));
        if (!report.valid) throw new Outcome(EXIT.refused);
      }),
    );

  const webhooks = root.command('webhooks').description('signed event deliveries to your endpoints');
  paging(webhooks.command('list').description('your webhooks')).action(
    act(async ({ client, out }, options: { limit?: number; cursor?: string }) =>
      list(out, (await client.listWebhooks(options)) as never, ['webhook_id', 'url', 'events', 'created_at']),
    ),
  );
  webhooks
    .command('create')
    .description('register an https endpoint; its signing secret is printed once')
    .requiredOption('--url <url>', 'https URL')
    .option('--event <name>', 'an event to receive (repeat; default every event)', collect)
    .action(
      act(async ({ client, out }, options: { url: string; event?: string[] }) => {
        const webhook = await client.createWebhook({ url: options.url, events: options.event });
        out.result(webhook, () => `${webhook.webhook_id} created; its secret (shown once): ${webhook.secret}`);
      }),
    );
  webhooks
    .command('delete <id>')
    .description('remove a webhook')
    .action(act(async ({ client, out }, id: string) => out.result(await client.deleteWebhook(id), () => `${id} deleted`)));
  webhooks
    .command('rotate <id>')
    .description('a new signing secret (the old one signs alongside for a while)')
    .action(act(async ({ client, out }, id: string) => out.result(await client.rotateWebhookSecret(id))));
  paging(webhooks.command('deliveries <id>').description('the deliveries to a webhook and their attempts')).action(
    act(async ({ client, out }, id: string, options: { limit?: number; cursor?: string }) =>
      list(out, (await client.listWebhookDeliveries(id, options)) as never, ['delivery_id', 'event', 'status', 'attempts']),
    ),
  );

  return root;
}

/** Runs the CLI on `argv` and answers its exit code (2 usage, 1 refused by the API, 3 unreachable). */
export async function run(argv: string[], io: Streams = { out: process.stdout, err: process.stderr }): Promise<number> {
  const root = program(io);
  try {
    await root.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof Outcome) return error.exitCode;
    if (error instanceof UsageError) {
      io.err.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    const json = root.opts().json;
    if (error instanceof SvcError) {
      const body = {
        error: { code: error.code, message: error.message, status: error.status, docs_url: error.docsUrl, details: error.details },
      };
      io.err.write(json ? `${JSON.stringify(body, null, 2)}\n` : `error: ${error.code}: ${error.message}\n`);
      return error.code === 'network_error' ? EXIT.network : EXIT.refused;
    }
    io.err.write(`error: ${(error as Error).message}\n`);
    return EXIT.refused;
  }
}
