// Recorded workflow histories (test/histories/, written by `npm run record-histories`) and their
// replay against a workflow bundle: what workflows/replay.test.ts runs.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { History } from '@temporalio/common/lib/proto-utils';
import proto from '@temporalio/proto';
import { type ReplayWorkerOptions, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { bundleWorkflows } from '../worker/worker';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const HISTORIES_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'histories');

/*
 * The SDK's historyToJSON/historyFromJSON (@temporalio/common) throw "type must be a Type" in this
 * install: npm gave @temporalio/common, /proto and /worker each their own copy of protobufjs 8 (the
 * top-level one is 7, for @grpc/proto-loader), and protojson checks `instanceof` against its own.
 * The same conversion, with the protojson of the copy that @temporalio/proto's types come from.
 */
const protojson = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'))('protobufjs/ext/protojson') as {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
};
const historyType = (proto as any).lookupType('temporal.api.history.v1.History');

/** A fetched history as proto3 JSON, as the SDK's historyToJSON writes it (and historyFromJSON reads it). */
export function historyToJson(history: History): string {
  return JSON.stringify(protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2);
}

/** A proto3 JSON history (as historyToJson writes it) as the History the replay worker takes. */
export function historyFromJson(json: unknown): History {
  return protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}

export interface RecordedHistory {
  /** Its path under the histories folder without `.json` (`mail/refused`): it names the history in failures. */
  name: string;
  workflowType: string;
  /** Where it is stored, from the repository's root. */
  file: string;
  history: History;
}

/** Every `<workflow>/<scenario>.json` under `directory`, sorted by name. */
export function loadHistories(directory = HISTORIES_DIR): RecordedHistory[] {
  const found: RecordedHistory[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json')) {
        const history = JSON.parse(fs.readFileSync(full, 'utf8'));
        const workflowType = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
        if (!workflowType) throw new Error(`${full} is not a workflow history: its first event does not start a workflow`);
        found.push({
          name: path.relative(directory, full).replace(/\.json$/, ''),
          workflowType,
          file: path.relative(ROOT, full),
          history: historyFromJson(history),
        });
      }
    }
  };
  walk(directory);
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The bundle the test run built (SVC_WORKFLOW_BUNDLE), else one built now from workflows/index.ts. */
export async function currentWorkflowBundle(): Promise<WorkflowBundleOption> {
  const prebuilt = process.env.SVC_WORKFLOW_BUNDLE;
  return prebuilt ? { codePath: prebuilt } : bundleWorkflows();
}

let runtimeInstalled = false;

/** The replay worker's own log is dropped: a failed replay is reported through its result. */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const drop = () => undefined;
  try {
    Runtime.install({
      logger: { log: drop, trace: drop, debug: drop, info: drop, warn: drop, error: drop },
      // Core's own log (a failing workflow task on each non-determinism) goes to that logger too.
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // A worker of this process installed the runtime first: its logger stays.
  }
}

export interface ReplayFailure {
  file: string;
  workflowType: string;
  /** `DeterminismViolationError` (the code no longer matches the history) or `ReplayError`. */
  kind: string;
  message: string;
}

/**
 * Replays each history against the bundle's workflow code, in one replay worker. A history replays
 * when the code issues the same commands (activities, timers, child workflows, continue-as-new …)
 * in the same order as the recorded execution did. `sinks`: those a bundle's interceptors call (tracing's exporter).
 */
export async function replayHistories(
  bundle: WorkflowBundleOption,
  histories: RecordedHistory[],
  options: Pick<ReplayWorkerOptions, 'sinks'> = {},
): Promise<ReplayFailure[]> {
  quietRuntime();
  const byName = new Map(histories.map((recorded) => [recorded.name, recorded]));
  const failures: ReplayFailure[] = [];
  const results = Worker.runReplayHistories(
    { workflowBundle: bundle, replayName: 'recorded-histories', ...options },
    // The workflow id is the history's name, so each result (and failure) names its file.
    histories.map((recorded) => ({ workflowId: recorded.name, history: recorded.history })),
  );
  for await (const result of results) {
    if (!result.error) continue;
    const recorded = byName.get(result.workflowId)!;
    failures.push({ file: recorded.file, workflowType: recorded.workflowType, kind: result.error.name, message: result.error.message });
  }
  return failures;
}

/** One paragraph per failure, naming the history file, its workflow type and the non-determinism. */
export function describeFailures(failures: ReplayFailure[]): string {
  return failures
    .map((failure) => `${failure.file} (${failure.workflowType}) no longer replays: ${failure.kind}: ${failure.message}`)
    .join('\n');
}
