import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';

/** The test run's Temporal dev server (TEMPORAL_ADDRESS), for workflow tests against mocked activities. */
export interface WorkflowTestServer {
  /** For workers: each test runs one on a task queue of its own with the prebuilt bundle (SVC_WORKFLOW_BUNDLE). */
  native: NativeConnection;
  client: Client;
  /**
   * Runs `body` while a worker of its own (a new task queue, the prebuilt bundle SVC_WORKFLOW_BUNDLE,
   * these activities) polls; `body` starts its workflows on that task queue.
   */
  runOnOwnWorker<T>(activities: object, body: (taskQueue: string) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Connects a client and a worker connection to the run's dev server, and silences the worker
 * runtime's own log (activities failing on purpose are not the test's output), unless a file before
 * it in the same batch process installed the runtime already (it can be installed only once).
 */
export async function connectWorkflowTestServer(): Promise<WorkflowTestServer> {
  const silent = () => undefined;
  try {
    Runtime.install({ logger: { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: silent } });
  } catch {
    // A file before this one in the batch's process installed the runtime (a stack's worker): it stays.
  }
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run the workflow tests through npm test');
  const native = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  return {
    native,
    client: new Client({ connection, namespace: 'default' }),
    async runOnOwnWorker(activities, body) {
      const taskQueue = `wf-test-${randomUUID()}`;
      const worker = await Worker.create({
        connection: native,
        taskQueue,
        workflowBundle: { codePath: process.env.SVC_WORKFLOW_BUNDLE! },
        activities,
      });
      return worker.runUntil(() => body(taskQueue));
    },
    async close() {
      await connection.close();
      await native.close();
    },
  };
}
