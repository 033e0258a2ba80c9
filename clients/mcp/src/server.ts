import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type SvcClient, SvcError, VERSION } from '@svc-agents/sdk';
import { bulkTools } from './tools/bulk';
import { documentTools } from './tools/documents';
import type { McpOptions, Tool } from './tools/kit';
import { offerTools } from './tools/offers';
import { readingTools } from './tools/reading';
import { signingTools } from './tools/signing';
import { templateTools } from './tools/templates';
import { transferTools } from './tools/transfers';
import { verifyTools } from './tools/verify';

export type { McpOptions } from './tools/kit';

function ok(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value ?? null, null, 2) }] };
}

/** A refusal as a tool error carrying SPEC's code and its `docs_url` (never a crash of the server). */
function failure(error: unknown, docsUrl: string): CallToolResult {
  const refusal = error instanceof SvcError ? error : new SvcError('internal_error', (error as Error).message, 500);
  const body = {
    error: {
      code: refusal.code,
      message: refusal.message,
      status: refusal.status,
      docs_url: refusal.docsUrl ?? `${docsUrl}#${refusal.code}`,
      details: refusal.details,
    },
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

/**
 * What the MCP SDK refuses before a tool runs (an unknown tool, arguments that fail the input schema)
 * as the same tool error: SPEC's code and `docs_url`, not bare text. The SDK makes those results in
 * its (TypeScript-private) createToolError; this server's own refusals come through `failure`.
 */
function refuseLikeTheApi(server: McpServer, docsUrl: string): void {
  (server as unknown as { createToolError(message: string): CallToolResult }).createToolError = (raw: string) => {
    const message = raw.replace(/^MCP error -?\d+: /, '');
    const refusal = /^Tool \S+ (not found|disabled)$/.test(message)
      ? new SvcError('not_found', message, 404)
      : new SvcError('invalid_request', message, 400);
    return failure(refusal, docsUrl);
  };
}

/**
 * The MCP server of the Agents API (0.3.0): tools over the SDK, so every call goes through the
 * REST API and its one authorization gate. There is no sign_document tool: signing is L2
 * (sign_as_principal, within a mandate the principal granted) or L1 (request_sign: the principal
 * confirms in the app).
 */
export function createMcpServer(client: SvcClient, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'svc', version: VERSION, title: 'Agents API' });
  const docsUrl = options.docsUrl ?? `${client.http.baseUrl}/docs/errors`;
  refuseLikeTheApi(server, docsUrl);
  const tool: Tool = (name, description, inputSchema, annotations, run) => {
    server.registerTool(name, { description, inputSchema, annotations }, (async (input: never) => {
      try {
        return ok(await run(input));
      } catch (error) {
        return failure(error, docsUrl);
      }
    }) as never);
  };

  const kit = { tool, client, options };
  for (const tools of [readingTools, documentTools, templateTools, bulkTools, signingTools, offerTools, transferTools, verifyTools])
    tools(kit);
  return server;
}

/** The names of the tools, for documentation and tests. */
export const TOOL_NAMES = [
  'me',
  'list_templates',
  'list_documents',
  'get_document',
  'list_contacts',
  'list_offers',
  'get_offer',
  'list_drive',
  'list_transfers',
  'get_transfer',
  'list_sign_requests',
  'get_document_audit',
  'create_document',
  'send_document',
  'bulk_send',
  'get_bulk',
  'void_document',
  'remind_signers',
  'upload_file',
  'create_template',
  'update_template',
  'delete_template',
  'request_sign',
  'sign_as_principal',
  'invite_contact',
  'propose_contract',
  'accept_offer',
  'decline_offer',
  'upload_asset',
  'create_transfer',
  'offer_transfer',
  'claim_transfer',
  'accept_transfer',
  'download_transfer',
  'cancel_transfer',
  'verify_pdf',
] as const;
