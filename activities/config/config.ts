import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors';
import { resolveFlags, type ResolvedFlags } from './flags';

export { ConfigError };

/** Every setting of the service, read once from the environment (README lists each variable). */
export interface Config {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  publicUrl: string;
  appUrl: string;
  docsUrl: string;
  dataDir: string;
  databaseUrl?: string;
  databasePoolMax: number;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    cliPath?: string;
    devPort: number;
    uiPort: number;
    uiUrl?: string;
    workflowBundle?: string;
  };
  jsonLimitBytes: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  flags: ResolvedFlags;
}

type Env = Record<string, string | undefined>;

const port = z.coerce.number().int().min(0).max(65535);
const url = z.url().transform((value) => value.replace(/\/+$/, ''));

const EnvSchema = z.object({
  SVC_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  SVC_PUBLIC_URL: url.optional(),
  SVC_APP_URL: url.optional(),
  SVC_DOCS_URL: url.optional(),
  SVC_DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('svc'),
  TEMPORAL_CLI: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_UI_URL: url.optional(),
  SVC_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  SVC_JSON_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

/** Empty variables count as unset, as a shell `FOO=` usually means "no value". */
function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
}

export function loadConfig(rawEnv: Env = process.env): Config {
  const env = withoutEmpty(rawEnv);
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid environment: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const publicUrl = e.SVC_PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  return {
    env: e.SVC_ENV,
    host: e.HOST,
    port: e.PORT,
    publicUrl,
    appUrl: e.SVC_APP_URL ?? `${publicUrl}/app`,
    docsUrl: e.SVC_DOCS_URL ?? `${publicUrl}/docs/errors`,
    dataDir: path.resolve(e.SVC_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI,
      devPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: e.TEMPORAL_UI_URL,
      workflowBundle: e.SVC_WORKFLOW_BUNDLE,
    },
    jsonLimitBytes: e.SVC_JSON_LIMIT_BYTES,
    logLevel: e.LOG_LEVEL,
    flags: resolveFlags(rawEnv, e.SVC_ENV),
  };
}
