import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { seedSamples, sentNda } from '../../test/documents';
import type { Account } from '../../test/factories';
import { driveSamples, executable } from '../../test/files';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { type CompletedPdf, completedPdf, tampered } from '../../test/verify';
import { TOOL_NAMES } from './src/server';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
const json = (result: unknown) => JSON.parse((result as ToolResult).content[0].text ?? 'null');

describe('the MCP server (0.3.0) over stdio and over streamable HTTP at /mcp', () => {
  let stack: Stack;
  let account: Account;
  let stdio: Client;
  let overHttp: Client;
  /** One completed PDF for the verify_pdf tests of both transports, made by the first that needs it. */
  let completed: Promise<CompletedPdf> | undefined;

  before(async () => {
    stack = await startStack({ env: { SVC_APPLY_WAIT_MS: '30000' } });
    ({ account } = await mandatedAccount(stack, { level: 'L2', name: 'Mia Mcp' }));
    stdio = new Client({ name: 'test', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, 'clients/mcp/bin/svc-mcp.js')],
        env: { ...(process.env as Record<string, string>), SVC_API_KEY: account.key, SVC_BASE_URL: stack.url },
        stderr: 'pipe',
      }),
    );
    overHttp = new Client({ name: 'test', version: '1.0.0' });
    await overHttp.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${account.key}` } },
      }),
    );
  });
  /** Where refusals point: the service's SVC_DOCS_URL on the HTTP mount; over stdio, the service's own page at SVC_BASE_URL. */
  const docsOf = (transport: 'stdio' | 'HTTP') => (transport === 'HTTP' ? stack.config.docsUrl : `${stack.url}/docs/errors`);
  after(async () => {
    await stdio?.close();
    await overHttp?.close();
    await stack.close();
  });

  for (const [transport, client] of [
    ['stdio', () => stdio],
    ['HTTP', () => overHttp],
  ] as const) {
    it(`${transport}: reports 0.3.0 and lists every tool, with a JSON schema, annotations and no sign_document`, async () => {
      assert.equal(client().getServerVersion()?.version, '0.3.0');
      assert.equal(client().getServerVersion()?.name, 'svc');
      const { tools } = await client().listTools();
      const names: string[] = tools.map((tool) => tool.name).sort();
      assert.deepEqual([...names], [...TOOL_NAMES].sort());
      for (const required of [
        'request_sign',
        'list_sign_requests',
        'sign_as_principal',
        'invite_contact',
        'propose_contract',
        'accept_offer',
        'decline_offer',
        'upload_asset',
        'list_drive',
        'create_transfer',
        'offer_transfer',
        'list_transfers',
        'get_transfer',
        'claim_transfer',
        'accept_transfer',
        'download_transfer',
        'cancel_transfer',
        'upload_file',
      ])
        assert.ok(names.includes(required), required);
      assert.ok(!names.includes('sign_document'));
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      assert.equal(byName.get('get_document')?.annotations?.readOnlyHint, true);
      assert.equal(byName.get('sign_as_principal')?.annotations?.destructiveHint, true);
      assert.equal(byName.get('cancel_transfer')?.annotations?.destructiveHint, true);
      assert.equal(byName.get('sign_as_principal')?.inputSchema.type, 'object');
      assert.deepEqual(byName.get('sign_as_principal')?.inputSchema.required?.sort(), ['document_id', 'reason']);
      for (const signing of ['sign_as_principal', 'request_sign', 'accept_offer'])
        assert.match(byName.get(signing)?.description ?? '', /never intent to sign/, signing);
      assert.match(byName.get('sign_as_principal')?.description ?? '', /mandate the principal granted/);
      assert.match(byName.get('request_sign')?.description ?? '', /must wait/);
    });

    it(`${transport}: signs as the principal within its mandate, and answers refusals as tool errors with SPEC's code`, async () => {
      const { nda } = await seedSamples(stack, account);
      const document = await sentNda(stack, account, nda, { name: 'Mia Mcp', email: account.email }, { name: `MCP NDA ${transport}` });
      const me = json(await client().callTool({ name: 'me', arguments: {} }));
      assert.equal(me.plan, 'business');
      const signed = await client().callTool({
        name: 'sign_as_principal',
        arguments: { document_id: document.document_id, reason: 'agreed' },
      });
      assert.ok(!signed.isError, JSON.stringify(signed));
      assert.equal(json(signed).status, 'applied');
      const again = (await client().callTool({
        name: 'sign_as_principal',
        arguments: { document_id: document.document_id, reason: 'again' },
      })) as ToolResult;
      assert.equal(again.isError, true);
      assert.equal(json(again).error.code, 'already_signed');
      const missing = (await client().callTool({ name: 'get_document', arguments: { document_id: 'doc_nothere' } })) as ToolResult;
      assert.equal(missing.isError, true);
      assert.equal(json(missing).error.code, 'not_found');
      assert.equal(json(missing).error.status, 404);
    });

    it(`${transport}: upload_file takes a PDF only; upload_asset takes the Drive's kinds`, async () => {
      const pdf = (await driveSamples())[0].bytes;
      const uploaded = json(
        await client().callTool({ name: 'upload_file', arguments: { content_base64: pdf.toString('base64'), filename: 'c.pdf' } }),
      );
      assert.equal(uploaded.kind, 'pdf');
      const zip = (await driveSamples())[4].bytes;
      const refused = (await client().callTool({
        name: 'upload_file',
        arguments: { content_base64: zip.toString('base64') },
      })) as ToolResult;
      assert.equal(refused.isError, true);
      assert.equal(json(refused).error.code, 'unsupported_media_type');
      assert.equal(json(refused).error.docs_url, `${docsOf(transport)}#unsupported_media_type`);
      const asset = json(
        await client().callTool({ name: 'upload_asset', arguments: { content_base64: zip.toString('base64'), filename: 'b.zip' } }),
      );
      assert.equal(asset.kind, 'zip');
      const exe = (await client().callTool({
        name: 'upload_asset',
        arguments: { content_base64: executable().toString('base64'), filename: 'x.pdf' },
      })) as ToolResult;
      assert.equal(json(exe).error.code, 'unsupported_media_type');
    });

    it(`${transport}: every refusal the MCP server makes itself carries SPEC's code and docs_url`, async () => {
      const refusal = async (name: string, args: Record<string, unknown>) => {
        const result = (await client().callTool({ name, arguments: args })) as ToolResult;
        assert.equal(result.isError, true, `${name} is refused`);
        return json(result).error as { code: string; message: string; docs_url: string };
      };
      const png = (await driveSamples())[1].bytes;
      const notPdf = await refusal('upload_file', { content_base64: png.toString('base64') });
      assert.deepEqual([notPdf.code, notPdf.docs_url], ['unsupported_media_type', `${docsOf(transport)}#unsupported_media_type`]);
      const noFile = await refusal('upload_file', {});
      assert.deepEqual([noFile.code, noFile.docs_url], ['invalid_request', `${docsOf(transport)}#invalid_request`]);
      const badArguments = await refusal('get_document', { document_id: 42 });
      assert.deepEqual([badArguments.code, badArguments.docs_url], ['invalid_request', `${docsOf(transport)}#invalid_request`]);
      assert.match(badArguments.message, /get_document/);
      const unknownTool = await refusal('sign_document', {});
      assert.deepEqual([unknownTool.code, unknownTool.docs_url], ['not_found', `${docsOf(transport)}#not_found`]);
      const transfer = await refusal('download_transfer', {});
      assert.deepEqual([transfer.code, transfer.docs_url], ['invalid_request', `${docsOf(transport)}#invalid_request`]);
    });

    it(`${transport}: verify_pdf answers the report of a PDF (read-only); a changed copy is not valid; a non-PDF is refused with invalid_pdf`, async () => {
      completed ??= completedPdf(stack);
      const { pdf, documentId, signers, mandate } = await completed;
      const { tools } = await client().listTools();
      assert.equal(tools.find((tool) => tool.name === 'verify_pdf')?.annotations?.readOnlyHint, true);
      const result = (await client().callTool({
        name: 'verify_pdf',
        arguments: { content_base64: pdf.toString('base64') },
      })) as ToolResult;
      assert.ok(!result.isError, JSON.stringify(result));
      const report = json(result);
      assert.equal(report.valid, true, JSON.stringify(report.problems));
      assert.equal(report.issued_by_this_service, true);
      assert.equal(report.document_id, documentId);
      assert.deepEqual(
        report.signers.map((signer: { email: string; how: string; mandate_id: string | null }) => [
          signer.email,
          signer.how,
          signer.mandate_id,
        ]),
        [
          [signers[0].email, 'l2', mandate.id],
          [signers[1].email, 'browser', null],
        ],
      );
      const changed = json(
        await client().callTool({ name: 'verify_pdf', arguments: { content_base64: tampered(pdf).toString('base64') } }),
      );
      assert.equal(changed.valid, false);
      assert.equal(changed.issued_by_this_service, false);
      assert.ok(changed.problems.length > 0);
      const refused = (await client().callTool({
        name: 'verify_pdf',
        arguments: { content_base64: Buffer.from('not a PDF at all').toString('base64') },
      })) as ToolResult;
      assert.equal(refused.isError, true);
      assert.equal(json(refused).error.code, 'invalid_pdf');
      assert.equal(json(refused).error.status, 422);
    });
  }

  it('stdio reads and writes local files; the HTTP mount reads none of the service’s machine', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mcp-'));
    const file = path.join(folder, 'contract.pdf');
    fs.writeFileSync(file, (await driveSamples())[0].bytes);
    const local = json(await stdio.callTool({ name: 'upload_file', arguments: { path: file } }));
    assert.equal(local.name, 'contract.pdf');
    completed ??= completedPdf(stack);
    const signed = path.join(folder, 'signed.pdf');
    fs.writeFileSync(signed, (await completed).pdf);
    const verified = json(await stdio.callTool({ name: 'verify_pdf', arguments: { path: signed } }));
    assert.equal(verified.document_id, (await completed).documentId, 'verify_pdf reads a local PDF over stdio');
    const { tools } = await overHttp.listTools();
    const upload = tools.find((tool) => tool.name === 'upload_asset');
    assert.ok(!('path' in (upload?.inputSchema.properties ?? {})), 'no path over HTTP');
    const verify = tools.find((tool) => tool.name === 'verify_pdf');
    assert.ok(!('path' in (verify?.inputSchema.properties ?? {})), 'nor for verify_pdf');
    const refused = (await overHttp.callTool({ name: 'upload_asset', arguments: { path: '/etc/passwd' } })) as ToolResult;
    assert.equal(refused.isError, true);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('the HTTP mount answers 401 with a Bearer challenge to anything without a valid key, tools/list included, and takes only POST', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const metadata = `resource_metadata="${stack.config.publicUrl}/.well-known/oauth-protected-resource/mcp"`;
    for (const [authorization, challenge] of [
      [undefined, `Bearer realm="svc", ${metadata}`],
      ['Bearer svc_wrongkey', `Bearer realm="svc", ${metadata}, error="invalid_token"`],
      ['Basic dXNlcjpwYXNz', `Bearer realm="svc", ${metadata}, error="invalid_token"`],
    ] as const) {
      const reply = await fetch(`${stack.url}/mcp`, {
        method: 'POST',
        headers: authorization ? { ...headers, authorization } : headers,
        body: list,
      });
      assert.equal(reply.status, 401, `${authorization ?? 'no key'}: 401`);
      assert.equal(reply.headers.get('www-authenticate'), challenge);
      const { error } = (await reply.json()) as { error: { code: string; docs_url: string } };
      assert.deepEqual([error.code, error.docs_url], ['unauthorized', `${stack.config.docsUrl}#unauthorized`]);
    }
    const wrong = new Client({ name: 'test', version: '1.0.0' });
    await assert.rejects(
      wrong.connect(
        new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer svc_wrongkey' } },
        }),
      ),
      /401|Unauthorized|unauthorized/,
    );
    const get = await fetch(`${stack.url}/mcp`, { headers: { authorization: `Bearer ${account.key}` } });
    assert.equal(get.status, 405);
  });
});
