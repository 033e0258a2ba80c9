import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SvcClient } from '@svc-agents/sdk';
import type { Principal, Template } from '../db/models';
import { ROOT } from '../test/cli';
import { seedSamples, sentNda } from '../test/documents';
import type { Account } from '../test/factories';
import { mandatedAccount } from '../test/principal';
import { type Stack, startStack } from '../test/stack';
import { waitFor } from '../test/wait';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

/**
 * A signature still being applied when the service's wait ends (202 processing) is never left to
 * the agent to guess about: the SDK, the CLI and the MCP tool wait for its outcome.
 */
describe('the clients wait for a signature the service still applies after its 202', () => {
  let stack: Stack;
  let account: Account;
  let principal: Principal;
  let nda: Template;
  let sdk: SvcClient;

  before(async () => {
    // Each apply takes 1.5 s more than the service waits before answering 202.
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '300', SVC_FAULT_APPLY_PAUSE_MS: '1500' } });
    ({ account, principal } = await mandatedAccount(stack, { level: 'L2', name: 'Wanda Wait' }));
    ({ nda } = await seedSamples(stack, account));
    sdk = new SvcClient({ baseUrl: stack.url, apiKey: account.key });
  });
  after(() => stack.close());

  const ownNda = async () => (await sentNda(stack, account, nda, principal, { name: 'Waited NDA' })).document_id as string;
  const signerApply = async (documentId: string) =>
    (await sdk.getDocument(documentId)).signers.find((signer) => signer.email === principal.email)!.apply;

  it('SDK: signAsPrincipal answers applied after the 202s; with waitMs 0 it answers processing, and the document shows the apply', async () => {
    const waited = await sdk.signAsPrincipal(await ownNda(), 'As agreed');
    assert.equal(waited.status, 'applied');
    assert.ok(waited.document_hash);

    const documentId = await ownNda();
    const quick = await sdk.signAsPrincipal(documentId, 'As agreed', { waitMs: 0 });
    assert.equal(quick.status, 'processing');
    assert.equal((await signerApply(documentId))?.status, 'processing');
    const applied = await waitFor('the apply to land', async () => (await signerApply(documentId))?.status === 'applied', 20_000);
    assert.ok(applied);
  });

  it('CLI: svc docs sign waits for the outcome; --wait 0 says it is still being applied and how to see it', async () => {
    const env = { SVC_API_KEY: account.key, SVC_BASE_URL: stack.url };
    const waited = await svc(['docs', 'sign', await ownNda(), '--reason', 'As agreed', '--json'], env);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(JSON.parse(waited.stdout).status, 'applied');
    const documentId = await ownNda();
    const quick = await svc(['docs', 'sign', documentId, '--reason', 'As agreed', '--wait', '0'], env);
    assert.equal(quick.code, 0, quick.stderr);
    assert.match(quick.stdout, new RegExp(`${documentId} processing: .*svc docs get ${documentId}`));
  });

  it('MCP: sign_as_principal answers applied after the 202s', async () => {
    const mcp = new Client({ name: 'test', version: '1.0.0' });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, 'clients/mcp/bin/svc-mcp.js')],
        env: { ...(process.env as Record<string, string>), SVC_API_KEY: account.key, SVC_BASE_URL: stack.url },
        stderr: 'pipe',
      }),
    );
    try {
      const result = (await mcp.callTool({
        name: 'sign_as_principal',
        arguments: { document_id: await ownNda(), reason: 'As agreed' },
      })) as ToolResult;
      assert.ok(!result.isError, result.content[0].text);
      assert.equal(JSON.parse(result.content[0].text ?? 'null').status, 'applied');
    } finally {
      await mcp.close();
    }
  });
});

function svc(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'clients', 'cli', 'bin', 'svc.js'), ...args],
      { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}
