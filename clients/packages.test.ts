import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SCOPE = '@svc-agents/';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

/** The package names a line hands to the registry: `npx <name>`, `npm exec|x <name>`, or an mcpServers `"command": "npx"`. */
function fetchedNames(text: string): string[] {
  // A command is one line: [ \t], not \s, so a word ending one code span never takes the next span's.
  const options = String.raw`(?:[ \t]+-{1,2}[\w-]+(?:=\S+)?)*`;
  const patterns = [
    new RegExp(String.raw`\bnpx${options}[ \t]+(?:--package[= ][ \t]*)?([@\w][\w@./-]*)`, 'g'),
    new RegExp(String.raw`\bnpm[ \t]+(?:exec|x)${options}[ \t]+(?:--[ \t]+)?([@\w][\w@./-]*)`, 'g'),
    /"command"\s*:\s*"npx"\s*,\s*"args"\s*:\s*\[\s*(?:"-[^"]*"\s*,\s*)*"([^"]+)"/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** What a reader would copy from Markdown: fenced blocks and inline code spans, not the prose around them. */
function codeOf(markdown: string): string {
  const fence = /^```[^\n]*\n([\s\S]*?)^```/gm;
  const blocks = [...markdown.matchAll(fence)].map((match) => match[1]);
  const spans = [...markdown.replace(fence, '').matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
  return [...blocks, ...spans].join('\n');
}

describe('the client packages, as someone outside this repository meets them', () => {
  const workspaces: string[] = readJson('package.json').workspaces;
  const names = workspaces.map((folder) => readJson(path.join(folder, 'package.json')).name as string);
  let scratch: string;

  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-packages-'));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('are private and named under the project scope, the root too: no name is the public svc package', () => {
    assert.deepEqual(names, ['@svc-agents/sdk', '@svc-agents/cli', '@svc-agents/mcp']);
    assert.ok(readJson('package.json').name.startsWith(SCOPE), 'the root package');
    for (const folder of workspaces) {
      const manifest = readJson(path.join(folder, 'package.json'));
      assert.equal(manifest.private, true, `${manifest.name} is never published`);
      for (const [dependency, spec] of Object.entries(manifest.dependencies ?? {}))
        if (dependency.startsWith(SCOPE)) assert.match(String(spec), /^file:/, `${manifest.name} takes ${dependency} from the checkout`);
    }
    assert.deepEqual(Object.keys(readJson('clients/cli/package.json').bin), ['svc'], 'SPEC names the CLI svc');
  });

  it('no doc tells a user to npx or npm exec a name other than these scoped packages', () => {
    const sample = 'Ran through npx by name: `npx svc --help`.\n```sh\nnpx -y svc-mcp\nnpm exec -- @svc-agents/cli\n```\n';
    assert.deepEqual(
      fetchedNames(`${codeOf(sample)}\n"command": "npx", "args": ["-y", "svc-mcp"]`),
      ['svc-mcp', 'svc', '@svc-agents/cli', 'svc-mcp'],
      'the scanner finds what the registry would be asked for, and not the prose',
    );
    const docs = [
      'README.md',
      ...fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((file) => path.join('docs', file)),
    ].filter((file) => file.endsWith('.md'));
    const found = docs.flatMap((file) =>
      fetchedNames(codeOf(fs.readFileSync(path.join(ROOT, file), 'utf8')))
        .filter((name) => !names.includes(name))
        .map((name) => `${file}: ${name}`),
    );
    assert.deepEqual(found, [], 'each of these would run whatever the npm registry has under that name');
  });

  /** `npm install -g --prefix <tmp> <folders>` from the checkout, as the docs say, with no registry. */
  async function installGlobally(folders: string[], from = ROOT): Promise<string> {
    const prefix = fs.mkdtempSync(path.join(scratch, 'prefix-'));
    const npm = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', ...folders],
      from,
      process.env,
    );
    assert.equal(npm.code, 0, npm.stderr);
    return path.join(prefix, 'bin');
  }
  const elsewhere = () => fs.mkdtempSync(path.join(scratch, 'elsewhere-'));
  const userEnv = () => ({ PATH: process.env.PATH ?? '', HOME: elsewhere() });

  it('npm install -g ./clients/cli gives a svc command that runs from any folder', async () => {
    const bin = await installGlobally(['./clients/cli']);
    const help = await run(path.join(bin, 'svc'), ['--help'], elsewhere(), userEnv());
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: svc /);
    assert.match(help.stdout, /\btransfers\b/);
  });

  it('npm install -g ./clients/mcp gives a svc-mcp command that answers an MCP initialize over stdio from any folder', async () => {
    const bin = await installGlobally(['./clients/mcp']);
    const client = new Client({ name: 'packages-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: path.join(bin, 'svc-mcp'),
        cwd: elsewhere(),
        env: { ...userEnv(), SVC_API_KEY: 'svc_neverused000000000000000000000000' },
        stderr: 'pipe',
      }),
    );
    try {
      assert.deepEqual(client.getServerVersion(), { name: 'svc', version: '0.3.0', title: 'Agents API' });
    } finally {
      await client.close();
    }
  });

  it('a command linked from a checkout without npm install says so instead of a module stack trace', async () => {
    const checkout = path.join(scratch, 'bare-checkout');
    for (const folder of ['clients/sdk', 'clients/cli'])
      fs.cpSync(path.join(ROOT, folder), path.join(checkout, folder), {
        recursive: true,
        filter: (from) => !from.includes('node_modules'),
      });
    const bin = await installGlobally(['./clients/cli'], checkout);
    const help = await run(path.join(bin, 'svc'), ['--help'], elsewhere(), userEnv());
    assert.equal(help.code, 1);
    assert.equal(help.stderr, `svc: dependencies missing; run npm install in ${checkout}/\n`);
  });
});
