import { SvcClient, SvcError, VERSION } from '@svc-agents/sdk';
import { Command, CommanderError, Option } from 'commander';
import { accountCommands } from './commands/account';
import { bulkCommands } from './commands/bulk';
import { contactCommands } from './commands/contacts';
import { documentCommands } from './commands/documents';
import { driveCommands } from './commands/drive';
import { type CommandKit, EXIT, Outcome, positiveInt, UsageError } from './commands/kit';
import { offerCommands } from './commands/offers';
import { templateCommands } from './commands/templates';
import { transferCommands } from './commands/transfers';
import { webhookCommands } from './commands/webhooks';
import { resolveSettings } from './config';
import { createOutput, type Output, type Streams } from './output';

export { EXIT } from './commands/kit';

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
  const list: CommandKit['list'] = (out, page, columns) => {
    out.table(page.data, columns, page);
    if (!out.json && page.next_cursor) io.err.write(`more: --cursor ${page.next_cursor}\n`);
  };
  const paging = (command: Command) =>
    command
      .option('--limit <n>', 'items per page (1–100)', positiveInt)
      .option('--cursor <cursor>', 'the next_cursor of the previous page');

  const kit: CommandKit = { root, io, act, list, paging };
  for (const commands of [
    accountCommands,
    templateCommands,
    documentCommands,
    bulkCommands,
    contactCommands,
    offerCommands,
    driveCommands,
    transferCommands,
    webhookCommands,
  ])
    commands(kit);
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
