// Replicas for the reliability tests: API and worker processes of their own (`node --import tsx
// runtime/api.ts` / `runtime/worker.ts`, as `npm run api` and `npm run worker` start them) on one
// PostgreSQL database, one Temporal task queue and one MinIO bucket, each with a data dir of its own
// as on separate hosts. A test stack in this process prepares accounts and templates beside them.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../lib/log';
import { loadSealCertificate } from '../../lib/pdf/seal-certificate';
import { localActivityRuns } from '../applies';
import { ROOT, stopGroup } from '../cli';
import { call } from '../http';
import { freePort } from '../ports';
import { createTestBucket, type TestBucket } from '../s3';
import { type Stack, startStack } from '../stack';
import { waitFor } from '../wait';

/** One API or worker process, its output kept whole (pino writes its lines to stderr). */
export class ServiceProcess {
  private stdout = '';
  private stderr = '';

  private constructor(
    readonly name: string,
    readonly kind: 'api' | 'worker',
    readonly child: ChildProcess,
    /** The API's base URL (workers have none). */
    readonly url: string,
    readonly dataDir: string,
  ) {
    child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    child.stderr!.on('data', (chunk) => (this.stderr += chunk));
  }

  /** Starts the process on `env` in its own process group and its own data dir (under `scratch`, unless `dataDir` names one to share). */
  static async start(
    kind: 'api' | 'worker',
    name: string,
    env: Record<string, string | undefined>,
    scratch: string,
    options: { dataDir?: string } = {},
  ): Promise<ServiceProcess> {
    const dataDir = options.dataDir ?? path.join(scratch, name);
    fs.mkdirSync(dataDir, { recursive: true });
    const port = kind === 'api' ? await freePort() : 0;
    const child = spawn(process.execPath, ['--import', 'tsx', `runtime/${kind}.ts`], {
      cwd: ROOT,
      env: { ...process.env, ...env, SVC_DATA_DIR: dataDir, PORT: String(port) },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(name, kind, child, kind === 'api' ? `http://127.0.0.1:${port}` : '', dataDir);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The identity Temporal records for this worker's tasks (the SDK's default: pid@hostname). */
  get identity(): string {
    return `${this.pid}@${os.hostname()}`;
  }

  /** Everything the process wrote: stdout, then stderr (the log lines). */
  output(): string {
    return `${this.stdout}${this.stderr}`;
  }

  logLines(): string[] {
    return this.output().split('\n').filter(Boolean);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await stopGroup(this.pid, 'SIGTERM').catch(() => stopGroup(this.pid, 'SIGKILL').catch(() => undefined));
  }
}

export interface Replicas {
  /** The in-process stack (no worker of its own): its database, SMTP listener and services prepare the tests. */
  stack: Stack;
  bucket: TestBucket;
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  /** Every process's output, for a failure message. */
  outputs(): string;
  close(): Promise<void>;
}

/**
 * `apis` API processes and `workers` worker processes sharing the stack's PostgreSQL database, its
 * Temporal task queue, one MinIO bucket, SVC_SECRET_KEY and one seal certificate; resolves once
 * every API answers /v1/health and the task queue counts every worker's poller.
 */
export async function startReplicas(options: {
  apis: number;
  workers: number;
  env?: Record<string, string | undefined>;
  /** LOG_LEVEL of the processes (warn unless given). */
  logLevel?: string;
  /** The in-process stack's logger. */
  log?: Logger;
}): Promise<Replicas> {
  const bucket = await createTestBucket();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-replicas-'));
  // The seal comes from configuration, not from a data dir: every process seals with it.
  const seal = await loadSealCertificate({ dataDir: path.join(scratch, 'seal-maker') });
  const stack = await startStack({
    worker: false,
    log: options.log,
    env: {
      ...bucket.env,
      SVC_SECRET_KEY: randomBytes(32).toString('base64'),
      SVC_SIGNING_P12: path.join(scratch, 'seal-maker', 'pki', 'seal.p12'),
      SVC_SIGNING_P12_PASSPHRASE: seal.passphrase,
      ...options.env,
    },
  });
  const env = { ...stack.env, LOG_LEVEL: options.logLevel ?? 'warn' };
  const apis: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  const outputs = () => [...apis, ...workers].map((p) => `--- ${p.name} (pid ${p.pid}) ---\n${p.output()}`).join('\n');
  const close = async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    await stack.close();
    await bucket.drop().catch(() => undefined);
    fs.rmSync(scratch, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < options.apis; i += 1)
      apis.push(await ServiceProcess.start('api', `api-${String.fromCharCode(97 + i)}`, env, scratch));
    for (let i = 0; i < options.workers; i += 1) workers.push(await ServiceProcess.start('worker', `worker-${i + 1}`, env, scratch));
    for (const api of apis) {
      await waitFor(
        'the API process to answer /v1/health',
        async () => (await call(api.url, 'GET', '/v1/health').catch(() => undefined))?.status,
        90_000,
      );
    }
    if (options.workers > 0) {
      await waitFor(
        `${options.workers} worker processes to poll the task queue`,
        async () => ((await call(stack.url, 'GET', '/v1/health').catch(() => undefined))?.body?.worker?.pollers ?? 0) >= options.workers,
        90_000,
      );
    }
  } catch (error) {
    const message = `${(error as Error).message}\n${outputs()}`;
    await close();
    throw new Error(message);
  }
  return { stack, bucket, apis, workers, outputs, close };
}

/** Which worker ran each `activity` of a workflow: the identities of its ActivityTaskStarted events, or of the workflow tasks that recorded its local runs. */
export async function activityIdentities(stack: Stack, workflowId: string, activity: string): Promise<string[]> {
  const history = await stack.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Set<string>();
  const identities: string[] = [];
  for (const event of events) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes?.activityType?.name === activity) scheduled.add(String(event.eventId));
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId))) identities.push(started.identity ?? '');
  }
  // A local activity (an apply) runs in the worker whose workflow task records its marker.
  return [...identities, ...localActivityRuns(events, activity).map((run) => run.identity)];
}

/** A line of figures on stdout, prefixed so a run's summary can be grepped for it. */
export function figure(scenario: string, text: string): void {
  process.stdout.write(`[reliability] ${scenario}: ${text}\n`);
}

/** How many of `items` fall under each name. */
export function tally<T>(items: T[], nameOf: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[nameOf(item)] = (counts[nameOf(item)] ?? 0) + 1;
  return counts;
}
