import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Document, type Template } from '../db/models';
import { ROOT } from '../test/cli';
import { seedSamples } from '../test/documents';
import { agent, fixed, rest, row, SURFACES, stack, stranger, useParityStack } from '../test/fixtures/parity';
import { call } from '../test/http';
import { waitFor } from '../test/wait';
import { SvcClient } from './sdk/src/index';

const signers = (tag: string, index: number) => [
  { name: `Ann ${tag} ${index}`, email: `ann-${tag}-${index}@example.test` },
  { name: `Bob ${tag} ${index}`, email: `bob-${tag}-${index}@example.test` },
];

/** The same items as a CSV file for the CLI: a header of signer columns, one row per item. */
function csvOf(items: Array<{ signers: Array<{ name: string; email: string }>; name?: string; values?: Record<string, string> }>): string {
  const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  const most = Math.max(...items.map((item) => item.signers.length));
  const fields = [...new Set(items.flatMap((item) => Object.keys(item.values ?? {})))];
  const header = [
    'name',
    ...Array.from({ length: most }, (_, n) => [`signer${n + 1}_name`, `signer${n + 1}_email`]).flat(),
    ...fields.map((field) => `value:${field}`),
  ];
  const rows = items.map((item) =>
    [
      item.name ?? '',
      ...Array.from({ length: most }, (_, n) => [item.signers[n]?.name ?? '', item.signers[n]?.email ?? '']).flat(),
      ...fields.map((field) => item.values?.[field] ?? ''),
    ]
      .map(quote)
      .join(','),
  );
  return [header.join(','), ...rows].join('\r\n');
}

/** `svc …` in a pseudo-terminal (util-linux `script`), where a progress bar belongs; answers what the terminal showed. */
function svcInTerminal(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const quoted = [process.execPath, path.join(ROOT, 'clients/cli/bin/svc.js'), ...args]
    .map((part) => `'${part.replaceAll("'", `'\\''`)}'`)
    .join(' ');
  return new Promise((resolve) => {
    execFile(
      'script',
      ['-qfec', quoted, '/dev/null'],
      { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, timeout: 120_000 },
      (error, stdout) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
    );
  });
}

// Bulk send on every surface (the harness: test/fixtures/parity.ts), the SDK's wait and the CLI's progress bar.
describe('bulk send: every surface does the same, the SDK waits for it, the CLI shows its progress', () => {
  useParityStack();
  let nda: Template;
  let scratch: string;

  it('bulk_send and get_bulk answer alike on REST, the SDK, the CLI (a CSV file) and MCP', async () => {
    ({ nda } = await seedSamples(stack, agent));
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bulk-parity-'));
    await row(
      'bulk_send',
      agent,
      async (surface) => {
        const tag = surface.replace(/\W/g, '').toLowerCase();
        // Item 0 fills the Receiving Party's title by name; item 1 has one signer too many for the
        // two-role NDA: refused on its own.
        const items = [
          { signers: signers(tag, 0), name: 'Parity, "bulk" NDA', values: { 'receiving-title': `Title ${tag}` } },
          { signers: [...signers(tag, 1), { name: 'Cy Extra', email: `cy-${tag}@example.test` }] },
        ];
        const body = { template_id: nda.id, name: 'Parity bulk', send: true, items };
        const csv = path.join(scratch, `${tag}.csv`);
        fs.writeFileSync(csv, csvOf(items));
        return {
          name: 'bulk_send',
          rest: rest('POST', '/documents/bulk', body),
          sdk: (c) => c.bulkSend(body),
          cli: ['bulk', 'send', '--template', nda.id, '--name', 'Parity bulk', '--items', csv, '--send', '--no-wait'],
          mcp: ['bulk_send', body],
        };
      },
      (answer) => ({ status: answer.status, total: answer.total, pending: answer.pending, id: /^blk_/.test(answer.bulk_id) }),
    );
    // Each surface started its own bulk; every one makes item 0 (the CSV's quoted name read back whole) and refuses item 1.
    await waitFor(
      'the five documents of the five bulks',
      async () => {
        const { body } = await call(stack.url, 'GET', '/v1/documents?limit=100', { key: agent.key });
        return body.data.filter((document: { name: string }) => document.name === 'Parity, "bulk" NDA').length === 5;
      },
      60_000,
    );
    // Each surface's item 0 carries its own value, the CLI's from its CSV file's value: column.
    const made = await Document.query(stack.deps.db).where({ tenant_id: agent.tenantId, name: 'Parity, "bulk" NDA' });
    const titles = made.map((document) => document.widgets.find((widget) => widget.id === 'receiving-title')?.prefill?.value).sort();
    assert.deepEqual(titles, SURFACES.map((surface) => `Title ${surface.replace(/\W/g, '').toLowerCase()}`).sort());
    const cliBulk = await waitFor('the CLI’s bulk id', async () => {
      const rows = await stack.deps.db('bulk_sends').where({ tenant_id: agent.tenantId }).orderBy('created_at');
      return rows.length === 5 ? rows[2].id : undefined;
    });
    await waitFor(
      'the CLI’s bulk completed',
      async () => (await call(stack.url, 'GET', `/v1/bulk/${cliBulk}`, { key: agent.key })).body.status === 'completed',
      60_000,
    );
    await row(
      'get_bulk',
      agent,
      fixed({
        name: 'get_bulk',
        rest: rest('GET', `/bulk/${cliBulk}`),
        sdk: (c) => c.bulk(cliBulk),
        cli: ['bulk', 'show', cliBulk],
        mcp: ['get_bulk', { bulk_id: cliBulk }],
      }),
      (bulk) => ({
        status: bulk.status,
        counts: [bulk.total, bulk.created, bulk.failed, bulk.pending],
        items: bulk.items.map((item: { status: string; document_id: string | null; error: { code: string } | null }) => [
          item.status,
          item.document_id,
          item.error?.code ?? null,
        ]),
      }),
    );
    await row(
      'get_bulk (another tenant’s)',
      stranger,
      fixed({
        name: 'get_bulk',
        rest: rest('GET', `/bulk/${cliBulk}`),
        sdk: (c) => c.bulk(cliBulk),
        cli: ['bulk', 'show', cliBulk],
        mcp: ['get_bulk', { bulk_id: cliBulk }],
      }),
      (value) => value,
    );
    const tooMany = Array.from({ length: 501 }, (_, index) => ({ signers: signers('many', index) }));
    const manyFile = path.join(scratch, 'many.json');
    fs.writeFileSync(manyFile, JSON.stringify(tooMany));
    await row(
      'bulk_send (501 items)',
      agent,
      fixed({
        name: 'bulk_send',
        rest: rest('POST', '/documents/bulk', { template_id: nda.id, name: 'Too many', items: tooMany }),
        sdk: (c) => c.bulkSend({ template_id: nda.id, name: 'Too many', items: tooMany }),
        cli: ['bulk', 'send', '--template', nda.id, '--name', 'Too many', '--items', manyFile, '--no-wait'],
        mcp: ['bulk_send', { template_id: nda.id, name: 'Too many', items: tooMany }],
      }),
      (value) => value,
    );
  });

  it('the SDK’s waitForBulk reports progress and answers every item once completed', async () => {
    const client = new SvcClient({ baseUrl: stack.url, apiKey: agent.key });
    const items = Array.from({ length: 6 }, (_, index) => ({ signers: signers('wait', index) }));
    const started = await client.bulkSend({ template_id: nda.id, name: 'Waited bulk', send: true, items });
    assert.equal(started.status, 'running');
    const seen: number[] = [];
    const done = await client.waitForBulk(started.bulk_id, {
      intervalMs: 100,
      onProgress: (bulk) => seen.push(bulk.created + bulk.failed),
    });
    assert.equal(done.status, 'completed');
    assert.equal(done.created, 6);
    assert.equal(done.items.length, 6);
    assert.ok(done.items.every((item) => item.status === 'created' && item.document_id?.startsWith('doc_')));
    assert.equal(seen.at(-1), 6);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'progress only grows',
    );
  });

  it('svc bulk send draws a progress bar on a terminal and prints the result; nothing of a bar when piped', async () => {
    const items = Array.from({ length: 4 }, (_, index) => ({ signers: signers('bar', index) }));
    const file = path.join(scratch, 'bar.json');
    fs.writeFileSync(file, JSON.stringify({ items }));
    const env = { SVC_API_KEY: agent.key, SVC_BASE_URL: stack.url };
    const terminal = await svcInTerminal(['bulk', 'send', '--template', nda.id, '--name', 'Bar bulk', '--items', file, '--send'], env);
    assert.equal(terminal.code, 0, terminal.stdout);
    assert.match(terminal.stdout, /bulk \[[^\]]*\] 100% 4\/4/, `the terminal showed:\n${terminal.stdout}`);
    assert.match(terminal.stdout, /blk_\w+ completed: 4 created, 0 failed, 0 pending of 4/);
    const piped = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [path.join(ROOT, 'clients/cli/bin/svc.js'), 'bulk', 'send', '--template', nda.id, '--name', 'Piped bulk', '--items', file],
        { env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, timeout: 120_000 },
        (_error, stdout, stderr) => resolve({ stdout, stderr }),
      ),
    );
    assert.doesNotMatch(piped.stdout + piped.stderr, /\d+%/);
    assert.match(piped.stdout, /completed: 4 created/);
  });
});
