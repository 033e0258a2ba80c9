import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundleWorkflowCode } from '@temporalio/worker';
import { currentWorkflowBundle, describeFailures, loadHistories, replayHistories } from '../test/replay';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const silent = () => undefined;
const HOW_TO =
  'Executions already running would fail the same way after a deploy. Keep the old path behind patched() ' +
  '(or start a new workflow type), then re-record: npm run record-histories (docs/workflows.md).';

/** The workflow types the worker registers: the names workflows/index.ts exports. */
function registeredWorkflows(): string[] {
  const index = fs.readFileSync(path.join(ROOT, 'workflows/index.ts'), 'utf8');
  return [...index.matchAll(/export\s*\{([^}]+)\}\s*from/g)].flatMap((match) =>
    // `name` or `name as exported`: the exported name is the workflow type.
    match[1]
      .split(',')
      .filter((name) => name.trim())
      .map((name) => /(\w+)\s*$/.exec(name)![1]),
  );
}

describe('workflow replay: histories recorded from real runs replay against the current workflow code', () => {
  const histories = loadHistories();

  it('has a recorded history for every workflow the worker registers', () => {
    const recorded = new Set(histories.map((history) => history.workflowType));
    const missing = registeredWorkflows().filter((name) => !recorded.has(name));
    assert.deepEqual(missing, [], `no recorded history for ${missing.join(', ')}: add a story to test/record-histories.ts`);
  });

  it('replays every recorded history without non-determinism', { timeout: 120_000 }, async () => {
    const failures = await replayHistories(await currentWorkflowBundle(), histories);
    assert.equal(failures.length, 0, `${describeFailures(failures)}\n${HOW_TO}`);
  });

  it('fails, naming the history, when a workflow schedules an activity before one it already ran', { timeout: 120_000 }, async () => {
    // The mail workflow as it is today, plus one activity before deliverMail: the change a patch must guard.
    const source = fs.readFileSync(path.join(ROOT, 'workflows/mail/workflow.ts'), 'utf8');
    const anchor = 'await mail.deliverMail';
    assert.ok(source.includes(anchor), `workflows/mail/workflow.ts no longer has "${anchor}": update this test's change`);
    const changed = source
      .replace(anchor, `await record.recordMailFailure(input.mailId, 'added before deliverMail');\n    ${anchor}`)
      // The copy lives outside the tree: its relative imports point back into it.
      .replace(/from '(\.{1,2}\/[^']+)'/g, (_, relative: string) => `from '${path.join(ROOT, 'workflows/mail', relative)}'`);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-replay-'));
    try {
      const workflowsPath = path.join(directory, 'workflows.ts');
      fs.writeFileSync(workflowsPath, changed);
      const bundle = await bundleWorkflowCode({
        workflowsPath,
        // The copy lives outside the tree: @temporalio/workflow is found in the project's node_modules.
        webpackConfigHook: (config) => ({
          ...config,
          resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? ['node_modules']), path.join(ROOT, 'node_modules')] },
        }),
        logger: { log: silent, trace: silent, debug: silent, info: silent, warn: silent, error: silent },
      });
      const mail = histories.filter((history) => history.workflowType === 'mailWorkflow');
      assert.ok(mail.length > 0, 'a recorded mail history');
      const failures = await replayHistories(bundle, mail);
      assert.deepEqual(
        failures.map((failure) => [failure.file, failure.kind]),
        mail.map((history) => [history.file, 'DeterminismViolationError']),
        describeFailures(failures),
      );
      for (const failure of failures)
        assert.match(failure.message, /deliverMail[\s\S]*recordMailFailure|recordMailFailure[\s\S]*deliverMail/, failure.message);
      assert.match(
        describeFailures(failures),
        /test\/histories\/mail\/delivered\.json \(mailWorkflow\) no longer replays: DeterminismViolationError/,
      );
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
