// `svc-mcp`: the MCP server over stdio, for an agent on its own machine. Configured like the CLI:
// SVC_API_KEY and SVC_BASE_URL (default http://localhost:3000); SVC_APP_URL (default <SVC_BASE_URL>/app).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SvcClient } from '@svc-agents/sdk';
import { createMcpServer } from './server';

const apiKey = process.env.SVC_API_KEY;
if (!apiKey) {
  process.stderr.write('svc-mcp: set SVC_API_KEY (and SVC_BASE_URL) to the key the agent acts with\n');
  process.exit(2);
}
const client = new SvcClient({ baseUrl: process.env.SVC_BASE_URL ?? 'http://localhost:3000', apiKey });
await createMcpServer(client, {
  localFiles: true,
  docsUrl: process.env.SVC_DOCS_URL,
  appUrl: process.env.SVC_APP_URL,
}).connect(new StdioServerTransport());
