import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createKey, createPrincipal, revokeKey, setPlan } from '../../activities/accounts/accounts';
import { ServiceError } from '../../activities/errors';
import type { Db } from '../../db/connect';
import { PLANS } from '../../db/models';
import { issueDetails, describeDetails } from '../http/issues';

export const USAGE = `Usage: npm run admin -- <command> [options]

  create-principal --email <e-mail> --name <name> [--plan free|pro|business|enterprise] [--tenant <tenant id>]
      A new principal; in a new tenant (plan default business) unless --tenant names an existing one.
  create-key --email <principal e-mail> --label <label>
      A new API key for the principal. The raw key is printed once and stored only as a hash.
  revoke-key --id <key id>
      Revoke an API key; it answers 401 from then on.
  set-plan --tenant <tenant id> --plan free|pro|business|enterprise
      Change a tenant's plan (API access needs business or enterprise).

Every command prints JSON on stdout; a failure prints {"error": {...}} on stderr and exits 1.`;

/** A command line that cannot be run as given (exit code 2, with the usage). */
export class UsageError extends Error {
  override name = 'UsageError';
}

const Email = z.email();
const Plan = z.enum(PLANS);

const COMMANDS = {
  'create-principal': {
    options: { email: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' }, tenant: { type: 'string' } },
    schema: z.strictObject({ email: Email, name: z.string().trim().min(1), plan: Plan.optional(), tenant: z.string().min(1).optional() }),
    async run(db: Db, args: { email: string; name: string; plan?: (typeof PLANS)[number]; tenant?: string }) {
      const { tenant, principal } = await createPrincipal(db, { email: args.email, name: args.name, plan: args.plan, tenantId: args.tenant });
      return { tenant_id: tenant.id, principal_id: principal.id, email: principal.email, plan: tenant.plan };
    },
  },
  'create-key': {
    options: { email: { type: 'string' }, label: { type: 'string' } },
    schema: z.strictObject({ email: Email, label: z.string().trim().min(1).max(200) }),
    async run(db: Db, args: { email: string; label: string }) {
      const { apiKey, secret } = await createKey(db, { email: args.email, label: args.label });
      return { id: apiKey.id, key: secret, label: apiKey.label };
    },
  },
  'revoke-key': {
    options: { id: { type: 'string' } },
    schema: z.strictObject({ id: z.string().min(1) }),
    async run(db: Db, args: { id: string }) {
      const apiKey = await revokeKey(db, args.id);
      return { id: apiKey.id, label: apiKey.label, revoked_at: apiKey.revoked_at?.toISOString() };
    },
  },
  'set-plan': {
    options: { tenant: { type: 'string' }, plan: { type: 'string' } },
    schema: z.strictObject({ tenant: z.string().min(1), plan: Plan }),
    async run(db: Db, args: { tenant: string; plan: (typeof PLANS)[number] }) {
      const tenant = await setPlan(db, { tenantId: args.tenant, plan: args.plan });
      return { tenant_id: tenant.id, plan: tenant.plan };
    },
  },
} as const;

export interface ParsedCommand {
  name: keyof typeof COMMANDS;
  args: Record<string, unknown>;
}

/** Parses and validates a command line before anything touches the database. */
export function parseCommand(argv: string[]): ParsedCommand {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help') throw new UsageError('no command given');
  if (!(name in COMMANDS)) throw new UsageError(`unknown command ${name}`);
  const command = COMMANDS[name as keyof typeof COMMANDS];
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const parsed = command.schema.safeParse(values);
  if (!parsed.success) {
    throw new UsageError(describeDetails(issueDetails(parsed.error.issues).map((detail) => ({ ...detail, path: `--${detail.path}` }))));
  }
  return { name: name as ParsedCommand['name'], args: parsed.data };
}

export async function runCommand(db: Db, command: ParsedCommand): Promise<unknown> {
  const definition = COMMANDS[command.name] as { run(db: Db, args: Record<string, unknown>): Promise<unknown> };
  return definition.run(db, command.args);
}

export function errorJson(error: unknown): { error: { code: string; message: string } } {
  if (error instanceof ServiceError) return { error: { code: error.code, message: error.message } };
  if (error instanceof UsageError) return { error: { code: 'usage', message: error.message } };
  return { error: { code: 'internal_error', message: (error as Error).message } };
}
