import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ROOT, runNpm, waitFor } from '../test/cli';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { holdPort, serviceErrorLines } from '../test/npm-start';
import { freePort } from '../test/ports';
import { describeFailure } from './lifecycle';

describe('start-up errors are one line, with the setting to change', () => {
  let database: TestDatabase;
  let env: Record<string, string | undefined>;
  let closedPort: number;

  before(async () => {
    database = await createTestDatabase();
    closedPort = await freePort();
    const { SVC_WORKFLOW_BUNDLE, ...inherited } = process.env;
    env = { ...inherited, DATABASE_URL: database.url, PORT: String(await freePort()), LOG_LEVEL: 'info' };
  });

  after(() => database.drop());

  async function oneLine(script: string, scriptEnv: Record<string, string | undefined>): Promise<string> {
    const result = await runNpm(script, [], scriptEnv);
    assert.equal(result.code, 1, result.stderr);
    const lines = serviceErrorLines(result.stderr);
    assert.equal(lines.length, 1, `one line expected:\n${result.stderr}`);
    return lines[0];
  }

  it('npm run migrate: a database it cannot reach names DATABASE_URL; LOG_LEVEL=debug adds the stack', async () => {
    const unreachable = { ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/none` };
    assert.equal(
      await oneLine('migrate', unreachable),
      `the database cannot be reached (connect ECONNREFUSED 127.0.0.1:${closedPort}): is PostgreSQL running at DATABASE_URL?`,
    );
    const debug = await runNpm('migrate', [], { ...unreachable, LOG_LEVEL: 'debug' });
    assert.equal(debug.code, 1);
    assert.match(debug.stderr, /ECONNREFUSED[\s\S]*\n\s+at /);
  });

  it('npm run api: a taken PORT, before it connects to anything', async () => {
    const holder: net.Server = await holdPort(Number(env.PORT));
    try {
      assert.equal(await oneLine('api', env), `port ${env.PORT} (PORT) is in use by another process: stop it, or set PORT to a free port`);
    } finally {
      holder.close();
    }
  });

  it('npm run api: an unreadable SVC_VERIFY_TRUST_ANCHORS stops the start, naming it', async () => {
    const line = await oneLine('api', { ...env, SVC_VERIFY_TRUST_ANCHORS: '/nonexistent/anchors.pem' });
    assert.match(line, /^SVC_VERIFY_TRUST_ANCHORS: cannot read \/nonexistent\/anchors\.pem \(ENOENT/);
  });

  it('npm run worker: a Temporal server it cannot reach names TEMPORAL_ADDRESS', async () => {
    const line = await oneLine('worker', { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}` });
    assert.match(line, /^Temporal cannot be reached \(.*Connection refused.*\): is a Temporal server running at TEMPORAL_ADDRESS\?$/);
  });

  it('an unexpected error is its message on one line, pointing at LOG_LEVEL=debug for the stack', () => {
    const error = new Error('first\n  second');
    assert.equal(describeFailure(error, {}), 'first second (LOG_LEVEL=debug prints where)');
    assert.equal(describeFailure(error, { LOG_LEVEL: 'debug' }), error.stack);
  });
});

describe('onShutdown', () => {
  // A process that stops in 2 s on a signal, as the entry points do.
  const script = [
    "import { onShutdown } from './runtime/lifecycle.ts';",
    "onShutdown(() => new Promise((resolve) => setTimeout(resolve, 2000)), (line) => process.stdout.write(line + '\\n'));",
    "process.stdout.write('ready\\n');",
    'setInterval(() => {}, 1000);',
  ].join('\n');

  function run() {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  it('takes a signal repeated at once as the same one (npm forwards the Ctrl-C the terminal sent too) and stops once', async () => {
    const { child, output, exited } = run();
    await waitFor('the process to be ready', () => output().includes('ready'));
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    assert.equal(await exited, 0, output());
    assert.equal(output(), 'ready\nSIGINT: stopping ...\n');
  });

  it('exits at once on a second signal that comes later', async () => {
    const { child, output, exited } = run();
    await waitFor('the process to be ready', () => output().includes('ready'));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.kill('SIGTERM');
    assert.equal(await exited, 1, output());
    assert.equal(output(), 'ready\nSIGTERM: stopping ...\nSIGTERM again: exiting now\n');
  });
});
