import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SvcClient } from '@svc-agents/sdk';
import { createMcpServer } from './server';

export interface McpHttpOptions {
  /** The REST API of this same service, as the tools call it (its own listener, on loopback). */
  selfUrl(request: IncomingMessage): string;
  /** The service's error documentation, for the refusals the MCP server makes itself. */
  docsUrl?: string;
  /** Headers the tools send on their calls to selfUrl (the loopback mark that lets it take an access token issued for /mcp, and who the caller is). */
  selfHeaders?: Record<string, string>;
  /** The service's app, for the page where the principal grants a missing mandate. */
  appUrl?: string;
}

function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/**
 * The MCP server over streamable HTTP, stateless (one server per request), authenticated by the
 * same bearer API key as the REST API: each tool calls the REST API with that key, so every call
 * passes the same gate. Tools read no file of the service's machine.
 */
export async function handleMcpRequest(
  request: IncomingMessage,
  response: ServerResponse,
  body: unknown,
  options: McpHttpOptions,
): Promise<void> {
  const key = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!key) {
    reply(
      response,
      401,
      { error: { code: 'unauthorized', message: 'Send the API key as Authorization: Bearer <key>.' } },
      { 'www-authenticate': 'Bearer' },
    );
    return;
  }
  if (request.method !== 'POST') {
    // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
    reply(
      response,
      405,
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp.' }, id: null },
      { allow: 'POST' },
    );
    return;
  }
  const client = new SvcClient({ baseUrl: options.selfUrl(request), apiKey: key, headers: options.selfHeaders });
  const server = createMcpServer(client, { localFiles: false, docsUrl: options.docsUrl, appUrl: options.appUrl });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}
