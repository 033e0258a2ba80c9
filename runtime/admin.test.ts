import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../test/cli';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A doc's command line, exactly as written, in a shell at the project root, as a user pastes it. */
function shell(line: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The `npm … admin …` lines of a Markdown file's sh blocks. */
function adminLines(file: string): string[] {
  const blocks = [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((block) => block[1]);
  return blocks.flatMap((block) => block.split('\n')).filter((line) => /^npm\b.*\badmin\b/.test(line));
}

/** README.md and every markdown file under docs/ (docs/decisions/ included). */
const DOCS = [
  'README.md',
  ...fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => `docs/${file}`),
].filter((file) => file.endsWith('.md'));

describe("the docs' npm run admin lines, run through npm as a user runs them", () => {
  let scratch: string;
  /** A user's shell on embedded PGlite: no DATABASE_URL, and nothing of the npm that runs these tests. */
  let userEnv: (dataDir: string) => NodeJS.ProcessEnv;

  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-admin-docs-'));
    const { DATABASE_URL, TEST_DATABASE_URL, SVC_DATA_DIR, ...inherited } = process.env;
    const shellEnv = Object.fromEntries(Object.entries(inherited).filter(([name]) => !name.startsWith('npm_')));
    userEnv = (dataDir) => ({ ...shellEnv, SVC_DATA_DIR: dataDir });
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('README.md and docs/clients.md show create-principal, create-key and seed-samples (the README for Ann, then Bob)', () => {
    assert.deepEqual(
      adminLines('README.md').map((line) => line.match(/admin -- (\S+)/)?.[1]),
      ['create-principal', 'create-key', 'seed-samples', 'create-principal', 'create-key'],
    );
    assert.deepEqual(
      adminLines('docs/clients.md').map((line) => line.match(/admin -- (\S+)/)?.[1]),
      ['create-principal', 'create-key'],
    );
  });

  for (const file of DOCS.filter((doc) => adminLines(doc).length > 0)) {
    it(`${file}: each prints one JSON document on stdout and nothing else, on a fresh data dir`, async () => {
      const env = userEnv(fs.mkdtempSync(path.join(scratch, 'data-')));
      let tenant: string | undefined;
      for (const line of adminLines(file)) {
        // The docs' placeholder for the tenant the doc's create-principal made (`ten_…`, or `$TENANT` once copied).
        const ran = await shell(line.replaceAll('ten_…', tenant ?? 'ten_…'), { ...env, ...(tenant ? { TENANT: tenant } : {}) });
        assert.equal(ran.code, 0, `${line}\n${ran.stderr}`);
        let printed: any;
        assert.doesNotThrow(() => (printed = JSON.parse(ran.stdout)), `${line} printed on stdout:\n${ran.stdout}`);
        tenant ??= printed.tenant_id;
        if (/create-key/.test(line)) assert.match(printed.key, /^svc_/);
      }
    });
  }

  it('without -s npm puts its banner above the JSON, and the command says so on stderr', async () => {
    const env = userEnv(fs.mkdtempSync(path.join(scratch, 'data-')));
    const ran = await shell('npm run admin -- create-principal --email ann@example.com --name "Ann" | cat', env);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^\n> \S+ admin\n/);
    assert.match(ran.stderr, /npm run -s admin -- … prints the JSON alone/);
  });

  it('no doc, usage or hint shows npm run admin without -s', () => {
    const texts = [...DOCS, 'runtime/start.ts', 'api/admin/commands.ts'];
    const found = texts.flatMap((file) =>
      fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .filter((line) => /npm run admin --/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    assert.deepEqual(found, []);
  });
});
