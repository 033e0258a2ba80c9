import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createKey, createPrincipal, revokeKey, setPlan } from '../../activities/accounts/accounts';
import { createTemplate } from '../../activities/templates/templates';
import type { Db } from '../../db/connect';
import { PLANS, Template, Tenant } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { PdfThreads } from '../../lib/pdf/intake';
import { buildSampleNda, buildSampleServicesAgreement } from '../../lib/pdf/samples';
import type { ReceiptIssuer } from '../../lib/receipts';
import { reencryptSecrets } from '../../lib/secrets/reencrypt';
import { describeDetails, issueDetails } from '../http/issues';
import { SignerNameSchema } from '../shared/schema';

export const USAGE = `Usage: npm run -s admin -- <command> [options]

  create-principal --email <e-mail> --name <name> [--plan free|pro|business|enterprise] [--tenant <tenant id>]
      A new principal; in a new tenant (plan default business) unless --tenant names an existing one.
  create-key --email <principal e-mail> --label <label>
      A new API key for the principal. The raw key is printed once and stored only as a hash.
  revoke-key --id <key id>
      Revoke an API key; it answers 401 from then on.
  set-plan --tenant <tenant id> --plan free|pro|business|enterprise
      Change a tenant's plan (API access needs business or enterprise).
  create-template --tenant <tenant id> --pdf <file.pdf> --widgets <widgets.json> [--name <name>]
      A template from a PDF and its widgets: a JSON array of widgets, or {"name", "roles", "widgets"}.
      A widget: {"id", "type", "role", "page", "x", "y", "width", "height", "required", "label", "options"}
      (type: signature, initials, date, name, email, text, checkbox, dropdown, radio; PDF points from the top-left; page from 1).
  seed-samples --tenant <tenant id>
      The two sample templates: a one-page NDA (two roles) and a 50-page services agreement.
  rotate-receipt-key
      A new key signs receipts from now on; the old one stays in /.well-known/jwks.json so its receipts still verify.
  reencrypt-secrets
      After a rotation of SVC_SECRET_KEY (the old key in SVC_SECRET_KEY_PREVIOUS): seals every stored secret
      (webhook and inbox secrets, receipt keys, queued mails, Idempotency-Key answers, links in events)
      under the current key, so the old one can be dropped.

Every command prints JSON on stdout; a failure prints {"error": {...}} on stderr and exits 1.`;

/** A command line that cannot be run as given (exit code 2, with the usage). */
export class UsageError extends Error {
  override name = 'UsageError';
}

const Email = z.email();
const Plan = z.enum(PLANS);

export interface AdminContext {
  db: Db;
  blobs: BlobStore;
  /** PDF threads: a template's PDF goes through the safe intake. */
  pdf: PdfThreads;
  receipts: ReceiptIssuer;
  /** SVC_SECRET_KEY, with the keys it replaced. */
  secret: Buffer;
}

function readFile(file: string, option: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch {
    throw new UsageError(`${option}: cannot read ${file}`);
  }
}

function widgetsFile(file: string): { name?: string; roles?: string[]; widgets: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFile(file, '--widgets').toString('utf8'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--widgets: ${file} is not valid JSON`);
  }
  return Array.isArray(parsed) ? { widgets: parsed } : (parsed as { name?: string; roles?: string[]; widgets: unknown });
}

async function requireTenant(db: Db, id: string): Promise<Tenant> {
  const tenant = await Tenant.query(db).findById(id);
  if (!tenant) throw errors.notFound(t('errors.admin.no_tenant', { id }));
  return tenant;
}

function templateSummary(template: Template) {
  return {
    template_id: template.id,
    name: template.name,
    page_count: template.page_count,
    roles: template.roles,
    widgets: template.widgets.length,
  };
}

const COMMANDS = {
  'create-principal': {
    options: { email: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' }, tenant: { type: 'string' } },
    schema: z.strictObject({ email: Email, name: SignerNameSchema, plan: Plan.optional(), tenant: z.string().min(1).optional() }),
    async run({ db }: AdminContext, args: { email: string; name: string; plan?: (typeof PLANS)[number]; tenant?: string }) {
      const { tenant, principal } = await createPrincipal(db, {
        email: args.email,
        name: args.name,
        plan: args.plan,
        tenantId: args.tenant,
      });
      return { tenant_id: tenant.id, principal_id: principal.id, email: principal.email, plan: tenant.plan };
    },
  },
  'create-key': {
    options: { email: { type: 'string' }, label: { type: 'string' } },
    schema: z.strictObject({ email: Email, label: z.string().trim().min(1).max(200) }),
    async run({ db }: AdminContext, args: { email: string; label: string }) {
      const { apiKey, secret } = await createKey(db, { email: args.email, label: args.label });
      return { id: apiKey.id, key: secret, label: apiKey.label };
    },
  },
  'revoke-key': {
    options: { id: { type: 'string' } },
    schema: z.strictObject({ id: z.string().min(1) }),
    async run({ db }: AdminContext, args: { id: string }) {
      const apiKey = await revokeKey(db, args.id);
      return { id: apiKey.id, label: apiKey.label, revoked_at: apiKey.revoked_at?.toISOString() };
    },
  },
  'set-plan': {
    options: { tenant: { type: 'string' }, plan: { type: 'string' } },
    schema: z.strictObject({ tenant: z.string().min(1), plan: Plan }),
    async run({ db }: AdminContext, args: { tenant: string; plan: (typeof PLANS)[number] }) {
      const tenant = await setPlan(db, { tenantId: args.tenant, plan: args.plan });
      return { tenant_id: tenant.id, plan: tenant.plan };
    },
  },
  'create-template': {
    options: { tenant: { type: 'string' }, pdf: { type: 'string' }, widgets: { type: 'string' }, name: { type: 'string' } },
    schema: z.strictObject({
      tenant: z.string().min(1),
      pdf: z.string().min(1),
      widgets: z.string().min(1),
      name: z.string().trim().min(1).max(200).optional(),
    }),
    /** Paths are made absolute where the command is typed, as a running service may run elsewhere. */
    absolute: ['pdf', 'widgets'],
    async run({ db, blobs, pdf }: AdminContext, args: { tenant: string; pdf: string; widgets: string; name?: string }) {
      await requireTenant(db, args.tenant);
      const definition = widgetsFile(args.widgets);
      const name = args.name ?? definition.name ?? path.basename(args.pdf, path.extname(args.pdf));
      const template = await createTemplate(
        { db, blobs, pdf },
        {
          tenantId: args.tenant,
          pdf: readFile(args.pdf, '--pdf'),
          definition: { ...definition, name } as Parameters<typeof createTemplate>[1]['definition'],
          createdBy: 'operator',
        },
      );
      return templateSummary(template);
    },
  },
  'seed-samples': {
    options: { tenant: { type: 'string' } },
    schema: z.strictObject({ tenant: z.string().min(1) }),
    async run({ db, blobs, pdf }: AdminContext, args: { tenant: string }) {
      await requireTenant(db, args.tenant);
      const templates = [];
      for (const build of [buildSampleNda, buildSampleServicesAgreement]) {
        const sample = await build();
        const existing = await Template.query(db).findOne({ tenant_id: args.tenant, name: sample.name });
        const template =
          existing ??
          (await createTemplate(
            { db, blobs, pdf },
            {
              tenantId: args.tenant,
              pdf: sample.pdf,
              definition: { name: sample.name, roles: sample.roles, widgets: sample.widgets },
              createdBy: 'operator',
            },
          ));
        templates.push(templateSummary(template));
      }
      return { templates };
    },
  },
  'rotate-receipt-key': {
    options: {},
    schema: z.strictObject({}),
    async run({ receipts }: AdminContext) {
      const kid = await receipts.rotate();
      return { kid, jwks: (await receipts.jwks()).keys.map((key) => key.kid) };
    },
  },
  'reencrypt-secrets': {
    options: {},
    schema: z.strictObject({}),
    async run({ db, secret }: AdminContext) {
      return reencryptSecrets(db, secret);
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

export async function runCommand(context: AdminContext, command: ParsedCommand): Promise<unknown> {
  const definition = COMMANDS[command.name] as { run(context: AdminContext, args: Record<string, unknown>): Promise<unknown> };
  return definition.run(context, command.args);
}

/** The command line with file options made absolute (for a service running in another directory). */
export function absoluteArgv(argv: string[], cwd = process.cwd()): string[] {
  const command = COMMANDS[argv[0] as keyof typeof COMMANDS] as { absolute?: readonly string[] } | undefined;
  const options = new Set((command?.absolute ?? []).map((name) => `--${name}`));
  return argv.map((value, index) => (index > 0 && options.has(argv[index - 1]) ? path.resolve(cwd, value) : value));
}

export function errorJson(error: unknown): { error: { code: string; message: string } } {
  if (error instanceof ServiceError) return { error: { code: error.code, message: error.message } };
  if (error instanceof UsageError) return { error: { code: 'usage', message: error.message } };
  return { error: { code: 'internal_error', message: (error as Error).message } };
}
