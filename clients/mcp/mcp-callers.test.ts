import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LOOPBACK_HEADER, LOOPBACK_SECRET } from '../../api/http/auth';
import { CALLER_ADDRESS_HEADER, CALLER_AGENT_HEADER } from '../../api/http/mcp-caller';
import type { Template } from '../../db/models';
import { seedSamples } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call, type Reply } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
const json = (result: unknown) => JSON.parse((result as ToolResult).content[0].text ?? 'null');

/** Requests per minute from one client address without a valid key, on this file's stack. */
const PER_ADDRESS = 3;
/** A claim token nobody was given: each use is an unkeyed request, counted against its client address. */
const UNKNOWN_TOKEN = `svcxfer_${'x'.repeat(43)}`;

/** The two roles of the sample NDA. */
const SIGNERS = [
  { name: 'Dana Discloser', email: 'dana@example.test' },
  { name: 'Rick Receiver', email: 'rick@example.test' },
];

/** The official SDK client over the service's HTTP mount, from a client address (the stack trusts X-Forwarded-For) with its own User-Agent. */
async function mcpClient(stack: Stack, account: Account, from: { ip: string; userAgent: string }): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
      requestInit: {
        headers: { authorization: `Bearer ${account.key}`, 'x-forwarded-for': from.ip, 'user-agent': from.userAgent },
      },
    }),
  );
  return client;
}

/** The `document.created` line of a document's audit trail, as its owner reads it. */
async function createdLine(stack: Stack, account: Account, documentId: string): Promise<{ ip: string | null; user_agent: string | null }> {
  const trail = await call(stack.url, 'GET', `/v1/documents/${documentId}/audit`, { key: account.key });
  assert.equal(trail.status, 200, trail.text);
  const line = trail.body.data.find((entry: { action: string }) => entry.action === 'document.created');
  assert.ok(line, trail.text);
  return { ip: line.ip, user_agent: line.user_agent };
}

/** An unkeyed request from a client address, with extra headers. */
function unkeyed(stack: Stack, ip: string, headers: Record<string, string> = {}): Promise<Reply> {
  return call(stack.url, 'GET', `/v1/public/transfers/${UNKNOWN_TOKEN}`, { headers: { 'x-forwarded-for': ip, ...headers } });
}

describe('MCP calls are their callers’ calls: counted against the caller’s key and address, audited with its address and User-Agent', () => {
  let stack: Stack;
  let alice: Account;
  let bob: Account;
  let template: Template;
  const clients: Client[] = [];

  before(async () => {
    stack = await startStack({
      worker: false,
      env: { SVC_TRUST_PROXY: 'true', SVC_RATE_LIMIT_PER_IP: String(PER_ADDRESS), SVC_RATE_LIMIT_PER_KEY: '600' },
    });
    alice = await createAccount(stack.deps.db, { name: 'Alice Tenant' });
    bob = await createAccount(stack.deps.db, { name: 'Bob Tenant' });
    ({ nda: template } = await seedSamples(stack, alice));
  });
  after(async () => {
    for (const client of clients) await client.close();
    await stack.close();
  });

  it('one tenant spending its address’s limit through MCP leaves another’s MCP calls and the server’s own address alone; its calls are audited as its own', async () => {
    const a = await mcpClient(stack, alice, { ip: '198.51.100.10', userAgent: 'agent-a/1.0' });
    const b = await mcpClient(stack, bob, { ip: '198.51.100.20', userAgent: 'agent-b/1.0' });
    clients.push(a, b);

    // Tenant A spends its address's budget through MCP: each tool call makes one unkeyed REST call.
    for (let i = 0; i < PER_ADDRESS; i++) {
      const result = await a.callTool({ name: 'download_transfer', arguments: { token: UNKNOWN_TOKEN } });
      assert.equal(result.isError, true);
      assert.equal(json(result).error.code, 'not_found', JSON.stringify(result));
    }
    // They were counted against A's address (the /mcp request's, under the proxy settings) ...
    const refused = await unkeyed(stack, '198.51.100.10');
    assertErrorCode(refused, 429, 'rate_limited');
    assert.equal(refused.body.error.details[0].path, 'requests_per_address');
    // ... not against the address the tools call from: the server's own is untouched.
    const own = await call(stack.url, 'GET', `/v1/public/transfers/${UNKNOWN_TOKEN}`);
    assertErrorCode(own, 404, 'not_found');
    assert.equal(own.headers.get('x-ratelimit-remaining'), String(PER_ADDRESS - 1));

    // Tenant B's MCP calls pass: its own address's counter.
    const other = await b.callTool({ name: 'download_transfer', arguments: { token: UNKNOWN_TOKEN } });
    assert.equal(json(other).error.code, 'not_found', JSON.stringify(other));

    // A's keyed calls count against its key, not its spent address; the audit line names A's address and User-Agent.
    const created = await a.callTool({
      name: 'create_document',
      arguments: {
        template_id: template.id,
        name: 'Through MCP',
        signers: SIGNERS,
      },
    });
    assert.ok(!created.isError, JSON.stringify(created));
    assert.deepEqual(await createdLine(stack, alice, json(created).document_id), { ip: '198.51.100.10', user_agent: 'agent-a/1.0' });
  });

  it('reads the forwarded caller only beside the process’s loopback secret: without it, or with a wrong one, the same headers change nothing', async () => {
    const { nda: bobTemplate } = await seedSamples(stack, bob);
    const forged = { [CALLER_ADDRESS_HEADER]: '192.0.2.99', [CALLER_AGENT_HEADER]: 'forged/1.0' };
    const create = (headers: Record<string, string>) =>
      call(stack.url, 'POST', '/v1/documents', {
        key: bob.key,
        headers: { 'x-forwarded-for': '198.51.100.30', 'user-agent': 'direct/1.0', ...forged, ...headers },
        body: { template_id: bobTemplate.id, name: 'Direct', signers: SIGNERS },
      });
    const wrongSecret = randomBytes(32).toString('base64url');
    assert.notEqual(wrongSecret, LOOPBACK_SECRET);
    const untrusted: Array<Record<string, string>> = [{}, { [LOOPBACK_HEADER]: wrongSecret }, { [LOOPBACK_HEADER]: '' }];
    for (const headers of untrusted) {
      const reply = await create(headers);
      assert.equal(reply.status, 201, reply.text);
      assert.deepEqual(
        await createdLine(stack, bob, reply.body.document_id),
        { ip: '198.51.100.30', user_agent: 'direct/1.0' },
        JSON.stringify(headers),
      );
    }
    // The same headers with the secret (what only this process's MCP tools send) are the caller's.
    const trusted = await create({ [LOOPBACK_HEADER]: LOOPBACK_SECRET });
    assert.equal(trusted.status, 201, trusted.text);
    assert.deepEqual(await createdLine(stack, bob, trusted.body.document_id), { ip: '192.0.2.99', user_agent: 'forged/1.0' });

    // Unkeyed, a forged caller per request does not escape the sender's own address's counter.
    for (let i = 0; i < PER_ADDRESS; i++) {
      const reply = await unkeyed(stack, '198.51.100.40', { [CALLER_ADDRESS_HEADER]: `192.0.2.${i + 1}`, [LOOPBACK_HEADER]: wrongSecret });
      assertErrorCode(reply, 404, 'not_found');
    }
    const refused = await unkeyed(stack, '198.51.100.40', { [CALLER_ADDRESS_HEADER]: '192.0.2.50' });
    assertErrorCode(refused, 429, 'rate_limited');
    // With the secret, it counts against the caller named.
    const counted = await unkeyed(stack, '198.51.100.40', { [CALLER_ADDRESS_HEADER]: '192.0.2.51', [LOOPBACK_HEADER]: LOOPBACK_SECRET });
    assertErrorCode(counted, 404, 'not_found');
    assert.equal(counted.headers.get('x-ratelimit-remaining'), String(PER_ADDRESS - 1));
  });
});
